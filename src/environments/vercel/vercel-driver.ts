// The Vercel Sandbox backend: one named sandbox per session (the name is the handle's id), resumed
// when found, commands as detached `bash -c` runs whose logs are followed, stopped and deleted
// when the session ends.
import { randomBytes } from 'node:crypto';
import type { HermesConfig } from '../../config/schema';
import { optionalSdkStatus, VERCEL_SDK, type OptionalSdk } from '../optional-sdk';
import { prepareWorkdir } from '../shell/prepare-workdir';
import { ShellEnvironment } from '../shell/shell-environment';
import type { ShellRunner } from '../shell/shell-runner';
import { BackendUnavailableError, type EnvironmentDriver, type EnvironmentHandle, type TerminalEnvironment } from '../terminal-environment';
import type { VercelApi, VercelCredentials } from './vercel-api';
import { VercelSdkApi } from './vercel-sdk-api';

export type VercelSettings = HermesConfig['terminal']['vercel_sandbox'];

export interface VercelDriverOptions {
  /** The Vercel seam; the real SDK when omitted (tests give a local stand-in). */
  api?: VercelApi;
  killGraceMs?: number;
  /** Where VERCEL_* variables are read from when the config has no token. */
  env?: NodeJS.ProcessEnv;
  /** The optional package the real seam loads (tests name one that is not installed). */
  sdk?: OptionalSdk;
}

/** States a sandbox does not come back from: make a new one. */
const DEAD_STATES = new Set(['failed', 'aborted']);

const CREDENTIAL_NAMES = [
  ['token', 'VERCEL_TOKEN'],
  ['team_id', 'VERCEL_TEAM_ID'],
  ['project_id', 'VERCEL_PROJECT_ID'],
] as const;

/** Config first, then VERCEL_TOKEN / VERCEL_TEAM_ID / VERCEL_PROJECT_ID: all three or nothing. */
export function vercelCredentials(settings: VercelSettings, env: NodeJS.ProcessEnv = process.env): VercelCredentials | undefined {
  const [token, teamId, projectId] = CREDENTIAL_NAMES.map(([key, variable]) => settings[key] ?? env[variable]);
  return token && teamId && projectId ? { token, teamId, projectId } : undefined;
}

export function vercelSandboxName(sessionId: string): string {
  return `hermes-${sessionId.replace(/[^A-Za-z0-9-]/g, '-')}`;
}

export class VercelDriver implements EnvironmentDriver {
  readonly backend = 'vercel_sandbox' as const;
  private api: VercelApi | undefined;

  constructor(
    private readonly settings: VercelSettings,
    private readonly options: VercelDriverOptions = {},
  ) {
    this.api = options.api;
  }

  async unavailableReason(): Promise<string | undefined> {
    if (this.api) return undefined;
    const { problem } = optionalSdkStatus(this.options.sdk ?? VERCEL_SDK);
    if (problem) return problem;
    if (vercelCredentials(this.settings, this.options.env)) return undefined;
    const env = this.options.env ?? process.env;
    const missing = CREDENTIAL_NAMES.filter(([key, variable]) => !(this.settings[key] ?? env[variable])).map(([key, variable]) => `${variable} (terminal.vercel_sandbox.${key})`);
    return `Vercel Sandbox credentials are missing: set ${missing.join(', ')}`;
  }

  async start(handle: EnvironmentHandle): Promise<EnvironmentHandle> {
    const api = this.connect();
    const name = handle.id ?? vercelSandboxName(handle.sessionId ?? randomBytes(6).toString('hex'));
    const existing = await api.find(name);
    if (existing && DEAD_STATES.has(existing.status)) await api.remove(name);
    const id =
      existing && !DEAD_STATES.has(existing.status)
        ? existing.name
        : await api.create({ name, timeoutMs: this.settings.timeout_seconds * 1000, ...(this.settings.image ? { image: this.settings.image } : {}) });
    const started: EnvironmentHandle = { ...handle, id, details: { ...handle.details, ...(this.settings.image ? { image: this.settings.image } : {}) } };
    return prepareWorkdir(await this.attach(started), started);
  }

  async attach(handle: EnvironmentHandle): Promise<TerminalEnvironment> {
    if (!handle.id) throw new BackendUnavailableError('The Vercel sandbox has not been started (no sandbox name)');
    return new ShellEnvironment(handle, {
      run: this.runner(handle.id),
      ...(this.options.killGraceMs !== undefined ? { killGraceMs: this.options.killGraceMs } : {}),
    });
  }

  async destroy(handle: EnvironmentHandle): Promise<void> {
    if (handle.id) await this.connect().remove(handle.id);
  }

  async releaseAll(): Promise<void> {
    if (!this.options.api) this.api = undefined;
  }

  private runner(name: string): ShellRunner {
    return ({ script, env, onOutput, signal }) =>
      this.connect().runCommand(name, 'bash', ['-c', script], { ...(env && Object.keys(env).length ? { env } : {}), onOutput, signal });
  }

  private connect(): VercelApi {
    if (this.api) return this.api;
    const credentials = vercelCredentials(this.settings, this.options.env);
    if (!credentials) throw new BackendUnavailableError('Vercel Sandbox credentials are missing: set VERCEL_TOKEN, VERCEL_TEAM_ID and VERCEL_PROJECT_ID');
    this.api = new VercelSdkApi(credentials, this.options.sdk);
    return this.api;
  }
}
