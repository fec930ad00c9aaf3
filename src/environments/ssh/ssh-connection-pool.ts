// This worker's SSH connections: one per (user, host, port), shared by every session on that host,
// and replaced transparently when it dropped before a command started (never once one has).
import type { ClientChannel, SFTPWrapper } from 'ssh2';
import { shellQuote } from '../shell-quote';
import { BackendUnavailableError } from '../terminal-environment';
import { watchChannel } from './command-channel';
import { ConnectionGoneError, SshConnection, targetName, type SshConnectionOptions } from './ssh-connection';

export interface StartedCommand {
  channel: ClientChannel;
  /** The connection it runs on (to tell a dropped connection from a finished command). */
  connection: SshConnection;
}

export interface ControlResult {
  stdout: string;
  stderr: string;
  exitCode: number | null;
}

/** One SSH target as the environment sees it: commands, control scripts, SFTP, the remote home. */
export interface SshLink {
  readonly target: string;
  connection(): Promise<SshConnection>;
  startCommand(command: string, options?: { pty?: boolean }): Promise<StartedCommand>;
  /** Runs a short bookkeeping script on the control slot, bounded by `timeoutMs`. */
  runControl(script: string, timeoutMs: number): Promise<ControlResult>;
  /**
   * Runs `operation` on the connection's SFTP session; once more on a fresh connection when the
   * connection dropped under it (file operations here are safe to repeat).
   */
  withSftp<T>(operation: (sftp: SFTPWrapper) => Promise<T>): Promise<T>;
  /** The remote user's home directory (asked once per connection). */
  home(): Promise<string>;
}

export class SshConnectionPool {
  private readonly connections = new Map<string, Promise<SshConnection>>();
  private readonly homes = new WeakMap<SshConnection, Promise<string>>();

  link(options: SshConnectionOptions): SshLink {
    const target = targetName(options);
    const startCommand = async (command: string, flags: { pty?: boolean; control?: boolean } = {}): Promise<StartedCommand> => {
      // One retry on a fresh connection, only when the old one was gone before the command started.
      for (let attempt = 1; ; attempt += 1) {
        const connection = await this.connection(options);
        try {
          return { channel: await connection.startCommand(command, flags), connection };
        } catch (error) {
          if (!(error instanceof ConnectionGoneError)) throw error;
          if (attempt >= 2) throw new BackendUnavailableError(error.message);
        }
      }
    };
    const runControl = async (script: string, timeoutMs: number): Promise<ControlResult> => {
      const { channel } = await startCommand(`exec bash -c ${shellQuote(script)}`, { control: true });
      return collect(channel, timeoutMs, target);
    };
    return {
      target,
      connection: () => this.connection(options),
      startCommand,
      runControl,
      withSftp: async <T>(operation: (sftp: SFTPWrapper) => Promise<T>): Promise<T> => {
        for (let attempt = 1; ; attempt += 1) {
          const connection = await this.connection(options);
          try {
            return await connection.withSftp(operation);
          } catch (error) {
            const dropped = error instanceof ConnectionGoneError || !connection.alive;
            if (!dropped) throw error;
            if (attempt >= 2) throw error instanceof ConnectionGoneError ? new BackendUnavailableError(error.message) : error;
          }
        }
      },
      home: async () => {
        const connection = await this.connection(options);
        let home = this.homes.get(connection);
        if (!home) {
          home = runControl('printf %s "$HOME"', 15_000).then((result) => {
            if (!result.stdout.startsWith('/')) throw new BackendUnavailableError(`Cannot find the home directory on ${target}: ${result.stderr.trim()}`);
            return result.stdout;
          });
          home.catch(() => this.homes.delete(connection));
          this.homes.set(connection, home);
        }
        return home;
      },
    };
  }

  /** The live connection to the target, opening a new one when there is none or it dropped. */
  async connection(options: SshConnectionOptions): Promise<SshConnection> {
    const key = targetName(options);
    const cached = this.connections.get(key);
    if (cached) {
      const existing = await cached;
      if (existing.alive) return existing;
      if (this.connections.get(key) !== cached) return this.connection(options);
    }
    const opening = SshConnection.open(options);
    this.connections.set(key, opening);
    opening.catch(() => {
      if (this.connections.get(key) === opening) this.connections.delete(key);
    });
    return opening;
  }

  async closeAll(): Promise<void> {
    const all = [...this.connections.values()];
    this.connections.clear();
    for (const opening of all) (await opening.catch(() => undefined))?.end();
  }
}

/** The most a control command's stdout or stderr keeps (a run log is at most 20 000 characters). */
const MAX_CONTROL_OUTPUT_CHARS = 4 * 1024 * 1024;

/** Output and exit code of a short command; the channel is closed if it overruns `timeoutMs`. */
async function collect(channel: ClientChannel, timeoutMs: number, target: string): Promise<ControlResult> {
  let stdout = '';
  let stderr = '';
  // Bounded: what the host prints is the remote user's to choose (a log file it swapped in), the worker's memory is not.
  const keep = (kept: string, text: string) => (kept.length < MAX_CONTROL_OUTPUT_CHARS ? kept + text.slice(0, MAX_CONTROL_OUTPUT_CHARS - kept.length) : kept);
  const watched = watchChannel(channel, { onStdout: (text) => (stdout = keep(stdout, text)), onStderr: (text) => (stderr = keep(stderr, text)) });
  let timer: NodeJS.Timeout | undefined;
  const overrun = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new BackendUnavailableError(`A control command on ${target} did not finish within ${timeoutMs} ms`));
      watched.abandon();
    }, timeoutMs);
  });
  try {
    const outcome = await Promise.race([watched.done, overrun]);
    return { stdout, stderr, exitCode: outcome.code };
  } finally {
    clearTimeout(timer);
  }
}
