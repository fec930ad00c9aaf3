// The Modal backend: one sandbox per session (idling on `sleep infinity`), found again by id or by
// name, commands through `exec` of `bash -c`, stopped by `terminate` when the session ends.
import { randomBytes } from 'node:crypto';
import type { HermesConfig } from '../../config/schema';
import { MODAL_SDK, optionalSdkStatus, type OptionalSdk } from '../optional-sdk';
import { prepareWorkdir } from '../shell/prepare-workdir';
import { ShellEnvironment } from '../shell/shell-environment';
import { exportLines, type ShellRunner } from '../shell/shell-runner';
import { BackendUnavailableError, type EnvironmentDriver, type EnvironmentHandle, type TerminalEnvironment } from '../terminal-environment';
import type { ModalApi, ModalCredentials } from './modal-api';
import { ModalSdkApi } from './modal-sdk-api';

export type ModalSettings = HermesConfig['terminal']['modal'];

/**
 * Modal takes 64 KiB for all of an exec's arguments (the SDK's validateExecArgs): the script gets
 * that less 4 KiB for `bash -c` and the variables exported before it.
 */
const MAX_SCRIPT_BYTES = 60 * 1024;

export interface ModalDriverOptions {
  /** The Modal seam; the real SDK when omitted (tests give a local stand-in). */
  api?: ModalApi;
  killGraceMs?: number;
  /** Where MODAL_* variables are read from when the config has no token. */
  env?: NodeJS.ProcessEnv;
  /** The optional package the real seam loads (tests name one that is not installed). */
  sdk?: OptionalSdk;
}

/** Config first, then the variables Modal's own tools use. */
export function modalCredentials(settings: ModalSettings, env: NodeJS.ProcessEnv = process.env): ModalCredentials | undefined {
  const tokenId = settings.token_id ?? env.MODAL_TOKEN_ID;
  const tokenSecret = settings.token_secret ?? env.MODAL_TOKEN_SECRET;
  if (!tokenId || !tokenSecret) return undefined;
  const environment = settings.environment ?? env.MODAL_ENVIRONMENT;
  return { tokenId, tokenSecret, ...(environment ? { environment } : {}), ...(settings.endpoint ? { endpoint: settings.endpoint } : {}) };
}

export function modalSandboxName(sessionId: string): string {
  return `hermes-${sessionId.replace(/[^A-Za-z0-9_.-]/g, '-')}`.slice(0, 64);
}

export class ModalDriver implements EnvironmentDriver {
  readonly backend = 'modal' as const;
  private api: ModalApi | undefined;

  constructor(
    private readonly settings: ModalSettings,
    private readonly options: ModalDriverOptions = {},
  ) {
    this.api = options.api;
  }

  async unavailableReason(): Promise<string | undefined> {
    if (this.api) return undefined;
    const { problem } = optionalSdkStatus(this.options.sdk ?? MODAL_SDK);
    if (problem) return problem;
    if (modalCredentials(this.settings, this.options.env)) return undefined;
    return 'Modal credentials are missing: set MODAL_TOKEN_ID and MODAL_TOKEN_SECRET (or terminal.modal.token_id and terminal.modal.token_secret)';
  }

  async start(handle: EnvironmentHandle): Promise<EnvironmentHandle> {
    const api = this.connect();
    const name = modalSandboxName(handle.sessionId ?? randomBytes(6).toString('hex'));
    const appName = this.settings.app_name;
    let sandboxId = handle.id && (await api.isRunning(handle.id)) ? handle.id : await api.findSandbox(appName, name);
    sandboxId ??= await api.createSandbox({
      appName,
      name,
      image: this.settings.image,
      workdir: this.settings.workdir,
      timeoutMs: this.settings.timeout_seconds * 1000,
    });
    const started: EnvironmentHandle = { ...handle, id: sandboxId, details: { ...handle.details, app: appName, name, image: this.settings.image } };
    return prepareWorkdir(await this.attach(started), started);
  }

  async attach(handle: EnvironmentHandle): Promise<TerminalEnvironment> {
    if (!handle.id) throw new BackendUnavailableError('The Modal environment has not been started (no sandbox id)');
    return new ShellEnvironment(handle, {
      run: this.runner(handle.id),
      maxScriptBytes: MAX_SCRIPT_BYTES,
      ...(this.options.killGraceMs !== undefined ? { killGraceMs: this.options.killGraceMs } : {}),
    });
  }

  async destroy(handle: EnvironmentHandle): Promise<void> {
    if (handle.id) await this.connect().terminate(handle.id);
  }

  async releaseAll(): Promise<void> {
    await this.api?.close();
    if (!this.options.api) this.api = undefined;
  }

  /** Variables go in the script: exec `env` would cost an ephemeral Secret per command. */
  private runner(sandboxId: string): ShellRunner {
    return ({ script, env, timeoutMs, onOutput, signal }) =>
      this.connect().exec(sandboxId, ['bash', '-c', exportLines(env) + script], { timeoutMs, onOutput, signal });
  }

  private connect(): ModalApi {
    if (this.api) return this.api;
    const credentials = modalCredentials(this.settings, this.options.env);
    if (!credentials) throw new BackendUnavailableError('Modal credentials are missing: set MODAL_TOKEN_ID and MODAL_TOKEN_SECRET');
    this.api = new ModalSdkApi(credentials, this.options.sdk);
    return this.api;
  }
}
