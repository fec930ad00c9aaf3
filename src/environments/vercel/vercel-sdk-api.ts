// VercelApi on the real `@vercel/sandbox`. Token, team and project are always passed (the SDK does
// not read VERCEL_TOKEN & co. itself, and would otherwise fall back to an OIDC token).
// The SDK is an optional package loaded on first use; the types below describe the part used here
// (test/backends/vercel checks them against the SDK's).
import { loadOptionalSdk, VERCEL_SDK, type OptionalSdk } from '../optional-sdk';
import type { VercelApi, VercelCommandOptions, VercelCredentials, VercelSandboxInfo, VercelSandboxSpec } from './vercel-api';

/** VercelCredentials as an object type (the SDK's params accept extra `__` keys: an interface would not fit). */
type VercelAuth = Pick<VercelCredentials, 'token' | 'teamId' | 'projectId'>;

/** The `@vercel/sandbox` exports this file uses. */
export interface VercelModule {
  Sandbox: {
    /** With `image` a custom image; without it, the default runtime. */
    create(params: VercelAuth & { name: string; timeout: number } & ({ image: string } | { image?: undefined })): Promise<Sandbox>;
    get(params: VercelAuth & { name: string; resume: boolean }): Promise<Sandbox>;
  };
  APIError: new (...args: never[]) => Error & { response: { status: number } };
}

export interface Sandbox {
  readonly name: string;
  readonly status: string;
  runCommand(params: { cmd: string; args: string[]; detached: true; env?: Record<string, string> }): Promise<Command>;
  stop(): Promise<unknown>;
  delete(): Promise<unknown>;
}

export interface Command {
  logs(params: { signal: AbortSignal }): AsyncIterable<{ data: string }>;
  wait(params: { signal: AbortSignal }): Promise<{ exitCode: number }>;
  kill(signal: 'SIGKILL'): Promise<unknown>;
}

const LOG_DRAIN_MS = 2_000;

export class VercelSdkApi implements VercelApi {
  private module: Promise<VercelModule> | undefined;
  private readonly sandboxes = new Map<string, Sandbox>();

  constructor(
    private readonly credentials: VercelCredentials,
    private readonly sdkPackage: OptionalSdk = VERCEL_SDK,
  ) {}

  async create(spec: VercelSandboxSpec): Promise<string> {
    const { Sandbox } = await this.sdk();
    const sandbox = await Sandbox.create({ ...this.credentials, name: spec.name, timeout: spec.timeoutMs, ...(spec.image ? { image: spec.image } : {}) });
    this.sandboxes.set(sandbox.name, sandbox);
    return sandbox.name;
  }

  async find(name: string): Promise<VercelSandboxInfo | undefined> {
    const { Sandbox, APIError } = await this.sdk();
    try {
      const sandbox = await Sandbox.get({ ...this.credentials, name, resume: true });
      this.sandboxes.set(sandbox.name, sandbox);
      return { name: sandbox.name, status: sandbox.status };
    } catch (error) {
      if (error instanceof APIError && error.response.status === 404) return undefined;
      throw error;
    }
  }

  /**
   * Detached, then followed: long attached commands lose their log stream ("Stream ended before
   * command finished"), while `wait()` polls for the exit code on its own.
   */
  async runCommand(name: string, cmd: string, args: string[], options: VercelCommandOptions): Promise<number> {
    const sandbox = await this.sandbox(name);
    const command: Command = await sandbox.runCommand({ cmd, args, detached: true, ...(options.env ? { env: options.env } : {}) });
    const logs = (async () => {
      try {
        for await (const line of command.logs({ signal: options.signal })) options.onOutput(line.data);
      } catch {
        // The stream ended early or was aborted: the exit code still comes from wait().
      }
    })();
    try {
      const finished = await command.wait({ signal: options.signal });
      // The log stream normally ends with the command; do not hang on one that does not.
      await Promise.race([logs, new Promise((resolve) => setTimeout(resolve, LOG_DRAIN_MS).unref())]);
      return finished.exitCode;
    } catch (error) {
      if (!options.signal.aborted) throw error;
      await command.kill('SIGKILL').catch(() => undefined);
      return -1;
    }
  }

  async remove(name: string): Promise<void> {
    const { APIError } = await this.sdk();
    try {
      const sandbox = await this.sandbox(name);
      await sandbox.stop().catch(() => undefined);
      await sandbox.delete();
    } catch (error) {
      if (!(error instanceof APIError && error.response.status === 404)) throw error;
    } finally {
      this.sandboxes.delete(name);
    }
  }

  private async sandbox(name: string): Promise<Sandbox> {
    const cached = this.sandboxes.get(name);
    if (cached) return cached;
    const { Sandbox } = await this.sdk();
    const sandbox = await Sandbox.get({ ...this.credentials, name, resume: true });
    this.sandboxes.set(name, sandbox);
    return sandbox;
  }

  private sdk(): Promise<VercelModule> {
    // A failed load is not kept: installing the package fixes the next call.
    this.module ??= loadOptionalSdk<VercelModule>(this.sdkPackage).catch((error: unknown) => {
      this.module = undefined;
      throw error;
    });
    return this.module;
  }
}
