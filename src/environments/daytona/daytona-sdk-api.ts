// DaytonaApi on the real `@daytonaio/sdk`. All configuration is passed explicitly: given an API
// key, URL and target the SDK never falls back to `.env` / `.env.local` files in the worker's cwd.
// The SDK is an optional package loaded on first use; the types below describe the part used here
// (test/backends/daytona checks them against the SDK's).
import { DAYTONA_SDK, loadOptionalSdk, type OptionalSdk } from '../optional-sdk';
import type { DaytonaApi, DaytonaCommandResult, DaytonaCredentials, DaytonaSandboxInfo, DaytonaSandboxSpec } from './daytona-api';

/** The `@daytonaio/sdk` exports this file uses. */
export interface DaytonaModule {
  Daytona: new (config: { apiKey: string; apiUrl: string; target: string }) => Daytona;
  DaytonaNotFoundError: new (...args: never[]) => Error;
}

export interface Daytona {
  create(params: { name: string; image: string; labels: Record<string, string>; autoStopInterval: number }, options: { timeout: number }): Promise<Sandbox>;
  get(idOrName: string): Promise<Sandbox>;
}

export interface Sandbox {
  readonly id: string;
  readonly state?: string;
  start(timeout?: number): Promise<void>;
  delete(timeout?: number): Promise<void>;
  process: {
    executeCommand(command: string, cwd?: string, env?: Record<string, string>, timeout?: number): Promise<{ exitCode: number; result: string }>;
  };
}

const LIFECYCLE_TIMEOUT_SECONDS = 120;

export class DaytonaSdkApi implements DaytonaApi {
  private module: Promise<DaytonaModule> | undefined;
  private client: Daytona | undefined;
  private readonly sandboxes = new Map<string, Sandbox>();

  constructor(
    private readonly credentials: DaytonaCredentials,
    private readonly sdkPackage: OptionalSdk = DAYTONA_SDK,
  ) {}

  async create(spec: DaytonaSandboxSpec): Promise<string> {
    const client = await this.connect();
    const sandbox = await client.create(
      // Never auto-stop: a session may wait hours for an approval between two commands.
      { name: spec.name, image: spec.image, labels: spec.labels, autoStopInterval: 0 },
      { timeout: LIFECYCLE_TIMEOUT_SECONDS },
    );
    this.sandboxes.set(sandbox.id, sandbox);
    return sandbox.id;
  }

  async find(idOrName: string): Promise<DaytonaSandboxInfo | undefined> {
    const client = await this.connect();
    const { DaytonaNotFoundError } = await this.sdk();
    try {
      const sandbox = await client.get(idOrName);
      this.sandboxes.set(sandbox.id, sandbox);
      return { id: sandbox.id, state: String(sandbox.state ?? 'unknown') };
    } catch (error) {
      if (error instanceof DaytonaNotFoundError) return undefined;
      throw error;
    }
  }

  async start(id: string): Promise<void> {
    await (await this.sandbox(id)).start(LIFECYCLE_TIMEOUT_SECONDS);
  }

  async executeCommand(id: string, command: string, options: { env?: Record<string, string>; timeoutSeconds: number }): Promise<DaytonaCommandResult> {
    const response = await (await this.sandbox(id)).process.executeCommand(command, undefined, options.env, options.timeoutSeconds);
    return { exitCode: response.exitCode, result: response.result };
  }

  async delete(id: string): Promise<void> {
    const { DaytonaNotFoundError } = await this.sdk();
    try {
      await (await this.sandbox(id)).delete(LIFECYCLE_TIMEOUT_SECONDS);
    } catch (error) {
      if (!(error instanceof DaytonaNotFoundError)) throw error;
    } finally {
      this.sandboxes.delete(id);
    }
  }

  private async sandbox(id: string): Promise<Sandbox> {
    const cached = this.sandboxes.get(id);
    if (cached) return cached;
    const sandbox = await (await this.connect()).get(id);
    this.sandboxes.set(id, sandbox);
    return sandbox;
  }

  private sdk(): Promise<DaytonaModule> {
    // A failed load is not kept: installing the package fixes the next call.
    this.module ??= loadOptionalSdk<DaytonaModule>(this.sdkPackage).catch((error: unknown) => {
      this.module = undefined;
      throw error;
    });
    return this.module;
  }

  private async connect(): Promise<Daytona> {
    if (this.client) return this.client;
    const { Daytona } = await this.sdk();
    this.client = new Daytona({ apiKey: this.credentials.apiKey, apiUrl: this.credentials.apiUrl, target: this.credentials.target });
    return this.client;
  }
}
