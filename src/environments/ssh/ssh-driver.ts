// The SSH backend: sessions run on one configured host (`terminal.ssh`), over connections this
// worker caches per (user, host, port). The handle names the host and the session's remote cwd,
// so any worker configured for the same host can re-attach.
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { HermesConfig } from '../../config/schema';
import { BackendUnavailableError, type EnvironmentDriver, type EnvironmentHandle, type TerminalEnvironment } from '../terminal-environment';
import { parseFingerprint } from './host-key';
import { remotePath } from './remote-scripts';
import { stopSessionProcessesScript } from '../background/session-processes-script';
import { SshConnectionPool, type SshLink } from './ssh-connection-pool';
import type { SshConnectionOptions } from './ssh-connection';
import { backgroundStateDir, SshEnvironment } from './ssh-environment';

export type SshSettings = HermesConfig['terminal']['ssh'];

export interface SshDriverOptions {
  /**
   * Worker variables exported into remote commands. Nothing else of the worker's environment
   * crosses to the host; these names are how a user forwards one (e.g. a token a build needs).
   */
  envPassthrough?: readonly string[];
  /** Time between SIGTERM and SIGKILL when a command is stopped. */
  killGraceMs?: number;
  /** Bound on connecting and authenticating. */
  connectTimeoutMs?: number;
  /** Bound on one file operation over SFTP. */
  fileTimeoutMs?: number;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 15_000;

export class SshDriver implements EnvironmentDriver {
  readonly backend = 'ssh' as const;
  private readonly pool = new SshConnectionPool();
  private privateKey?: Buffer;

  constructor(
    private readonly settings: SshSettings,
    private readonly options: SshDriverOptions = {},
  ) {}

  async unavailableReason(): Promise<string | undefined> {
    const problem = this.configurationProblem();
    if (problem) return problem;
    try {
      await this.link().connection();
      return undefined;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  }

  /** Connects, and resolves the workdir (`~` unless configured) to an absolute path, creating it. */
  async start(handle: EnvironmentHandle): Promise<EnvironmentHandle> {
    const link = this.link();
    const home = await link.home();
    const requested = handle.cwd || this.settings.workdir || '~';
    const fromHome = requested === '~' || requested.startsWith('~/');
    const absolute = fromHome ? path.posix.join(home, requested.slice(1)) : path.posix.resolve(home, requested);
    const result = await link.runControl(`mkdir -p -- ${remotePath(absolute)} && cd -- ${remotePath(absolute)} && pwd -P`, 15_000);
    const cwd = result.stdout.trim();
    if (result.exitCode !== 0 || !cwd.startsWith('/')) {
      throw new Error(`Cannot use ${absolute} as the working directory on ${link.target}: ${result.stderr.trim() || `exit ${result.exitCode}`}`);
    }
    return {
      ...handle,
      backend: 'ssh',
      id: link.target,
      cwd,
      details: { ...handle.details, host: this.settings.host ?? '', port: this.settings.port, user: this.settings.user ?? '', home },
    };
  }

  async attach(handle: EnvironmentHandle): Promise<TerminalEnvironment> {
    const link = this.link();
    if (handle.id && handle.id !== link.target) {
      throw new BackendUnavailableError(`This session's environment is on ${handle.id}, but this worker is configured for ${link.target}`);
    }
    // Connecting here, before any tool runs, makes an unreachable host an activity retry.
    const home = await link.home();
    return new SshEnvironment(handle, { link, home, env: this.passthroughEnv(), killGraceSeconds: this.killGraceSeconds() });
  }

  /** Stops the session's background processes and removes their state; the host itself stays. */
  async destroy(handle: EnvironmentHandle): Promise<void> {
    if (!handle.sessionId) return;
    const link = this.link();
    const stateDir = backgroundStateDir(await link.home(), handle.sessionId);
    await link.runControl(stopSessionProcessesScript(stateDir, this.killGraceSeconds()), 30_000);
  }

  async releaseAll(): Promise<void> {
    await this.pool.closeAll();
  }

  private configurationProblem(): string | undefined {
    const { host, user, key_path: keyPath, password, host_fingerprint: fingerprint } = this.settings;
    if (!host) return 'terminal.ssh.host is not set';
    if (!user) return 'terminal.ssh.user is not set';
    if (keyPath && !existsSync(expandLocalHome(keyPath))) return `terminal.ssh.key_path ${keyPath} does not exist`;
    if (!keyPath && !password && !process.env.SSH_AUTH_SOCK) return 'no terminal.ssh.key_path, terminal.ssh.password or ssh-agent (SSH_AUTH_SOCK) to log in with';
    if (fingerprint) {
      try {
        parseFingerprint(fingerprint);
      } catch (error) {
        return (error as Error).message;
      }
    }
    return undefined;
  }

  private link(): SshLink {
    const problem = this.configurationProblem();
    if (problem) throw new BackendUnavailableError(`SSH backend is not usable: ${problem}`);
    return this.pool.link(this.connectionOptions());
  }

  private connectionOptions(): SshConnectionOptions {
    const { settings } = this;
    if (settings.key_path && !this.privateKey) this.privateKey = readFileSync(expandLocalHome(settings.key_path));
    return {
      host: settings.host ?? '',
      port: settings.port,
      user: settings.user ?? '',
      ...(this.privateKey ? { privateKey: this.privateKey } : {}),
      ...(settings.password ? { password: settings.password } : {}),
      ...(process.env.SSH_AUTH_SOCK ? { agent: process.env.SSH_AUTH_SOCK } : {}),
      ...(settings.host_fingerprint ? { hostFingerprint: settings.host_fingerprint } : {}),
      trustUnknownHost: settings.trust_unknown_host,
      maxChannels: settings.max_channels,
      keepaliveMs: settings.keepalive_seconds * 1000,
      readyTimeoutMs: this.options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      ...(this.options.fileTimeoutMs ? { sftpTimeoutMs: this.options.fileTimeoutMs } : {}),
    };
  }

  private passthroughEnv(): Record<string, string> {
    const env: Record<string, string> = {};
    for (const name of this.options.envPassthrough ?? []) {
      const value = process.env[name];
      if (value !== undefined) env[name] = value;
    }
    return env;
  }

  private killGraceSeconds(): number {
    return (this.options.killGraceMs ?? 2000) / 1000;
  }
}

function expandLocalHome(file: string): string {
  return file === '~' || file.startsWith('~/') ? path.join(os.homedir(), file.slice(1)) : file;
}
