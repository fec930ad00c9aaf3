// The Daytona backend: one sandbox per session (named after it, never auto-stopped), started again
// when found stopped, commands through `executeCommand` wrapped in `bash -c` (the daemon runs the
// string without a shell), deleted when the session ends.
import { randomBytes } from 'node:crypto';
import type { HermesConfig } from '../../config/schema';
import { DAYTONA_SDK, optionalSdkStatus, type OptionalSdk } from '../optional-sdk';
import { prepareWorkdir } from '../shell/prepare-workdir';
import { ShellEnvironment } from '../shell/shell-environment';
import type { ShellRunner } from '../shell/shell-runner';
import { BackendUnavailableError, type EnvironmentDriver, type EnvironmentHandle, type TerminalEnvironment } from '../terminal-environment';
import type { DaytonaApi, DaytonaCommandResult, DaytonaCredentials } from './daytona-api';
import { DaytonaSdkApi } from './daytona-sdk-api';

export type DaytonaSettings = HermesConfig['terminal']['daytona'];

export interface DaytonaDriverOptions {
  /** The Daytona seam; the real SDK when omitted (tests give a local stand-in). */
  api?: DaytonaApi;
  killGraceMs?: number;
  /** Where DAYTONA_* variables are read from when the config has no key. */
  env?: NodeJS.ProcessEnv;
  /** The optional package the real seam loads (tests name one that is not installed). */
  sdk?: OptionalSdk;
}

const DEFAULT_API_URL = 'https://app.daytona.io/api';
const DEFAULT_TARGET = 'us';
/** Daytona's own timeout is a backstop: the environment's pidfile kill comes first. */
const SERVER_TIMEOUT_SLACK_SECONDS = 30;
/** After the command was killed in the sandbox, its (complete) reply is usually moments away. */
const REPLY_GRACE_AFTER_ABORT_MS = 2_000;
const RESTARTABLE_STATES = new Set(['stopped', 'archived', 'stopping']);

/** Config first, then the variables Daytona's own tools use (never `.env` files). */
export function daytonaCredentials(settings: DaytonaSettings, env: NodeJS.ProcessEnv = process.env): DaytonaCredentials | undefined {
  const apiKey = settings.api_key ?? env.DAYTONA_API_KEY;
  if (!apiKey) return undefined;
  return { apiKey, apiUrl: settings.api_url ?? env.DAYTONA_API_URL ?? DEFAULT_API_URL, target: settings.target ?? env.DAYTONA_TARGET ?? DEFAULT_TARGET };
}

export function daytonaSandboxName(sessionId: string): string {
  return `hermes-${sessionId.replace(/[^A-Za-z0-9_.-]/g, '-')}`;
}

/**
 * The one command line that survives the daemon's quote-aware split intact: the script travels as
 * base64 (no quotes, no spaces) and bash decodes and evaluates it.
 */
export function daytonaCommandFor(script: string): string {
  return `bash -c 'eval "$(echo ${Buffer.from(script, 'utf8').toString('base64')} | base64 -d)"'`;
}

export class DaytonaDriver implements EnvironmentDriver {
  readonly backend = 'daytona' as const;
  private api: DaytonaApi | undefined;

  constructor(
    private readonly settings: DaytonaSettings,
    private readonly options: DaytonaDriverOptions = {},
  ) {
    this.api = options.api;
  }

  async unavailableReason(): Promise<string | undefined> {
    if (this.api) return undefined;
    const { problem } = optionalSdkStatus(this.options.sdk ?? DAYTONA_SDK);
    if (problem) return problem;
    if (daytonaCredentials(this.settings, this.options.env)) return undefined;
    return 'Daytona credentials are missing: set DAYTONA_API_KEY (or terminal.daytona.api_key)';
  }

  async start(handle: EnvironmentHandle): Promise<EnvironmentHandle> {
    const api = this.connect();
    const name = daytonaSandboxName(handle.sessionId ?? randomBytes(6).toString('hex'));
    const existing = (handle.id ? await api.find(handle.id) : undefined) ?? (await api.find(name));
    let id: string;
    if (existing) {
      id = existing.id;
      if (RESTARTABLE_STATES.has(existing.state)) await api.start(id);
    } else {
      id = await api.create({ name, image: this.settings.image, labels: { hermes_session: handle.sessionId ?? name } });
    }
    const started: EnvironmentHandle = { ...handle, id, details: { ...handle.details, name, image: this.settings.image } };
    return prepareWorkdir(await this.attach(started), started);
  }

  async attach(handle: EnvironmentHandle): Promise<TerminalEnvironment> {
    if (!handle.id) throw new BackendUnavailableError('The Daytona environment has not been started (no sandbox id)');
    return new ShellEnvironment(handle, {
      run: this.runner(handle.id),
      home: '/home/daytona',
      ...(this.options.killGraceMs !== undefined ? { killGraceMs: this.options.killGraceMs } : {}),
    });
  }

  async destroy(handle: EnvironmentHandle): Promise<void> {
    if (handle.id) await this.connect().delete(handle.id);
  }

  async releaseAll(): Promise<void> {
    if (!this.options.api) this.api = undefined;
  }

  /** executeCommand replies once, at the end: the output arrives in one piece. */
  private runner(id: string): ShellRunner {
    return async ({ script, env, timeoutMs, onOutput, signal }) => {
      const call = this.connect().executeCommand(id, daytonaCommandFor(script), {
        ...(env && Object.keys(env).length ? { env } : {}),
        timeoutSeconds: Math.ceil(timeoutMs / 1000) + SERVER_TIMEOUT_SLACK_SECONDS,
      });
      const result = await raceAbort(call, signal);
      if (!result) return -1;
      onOutput(result.result);
      return result.exitCode;
    };
  }

  private connect(): DaytonaApi {
    if (this.api) return this.api;
    const credentials = daytonaCredentials(this.settings, this.options.env);
    if (!credentials) throw new BackendUnavailableError('Daytona credentials are missing: set DAYTONA_API_KEY');
    this.api = new DaytonaSdkApi(credentials, this.options.sdk);
    return this.api;
  }
}

/** The reply, or undefined when it has not come a moment after the caller stopped waiting. */
function raceAbort(call: Promise<DaytonaCommandResult>, signal: AbortSignal): Promise<DaytonaCommandResult | undefined> {
  return new Promise((resolve, reject) => {
    const onAbort = () => setTimeout(() => resolve(undefined), REPLY_GRACE_AFTER_ABORT_MS).unref();
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    void call.then(resolve, (error: unknown) => (signal.aborted ? resolve(undefined) : reject(error instanceof Error ? error : new Error(String(error)))));
  });
}
