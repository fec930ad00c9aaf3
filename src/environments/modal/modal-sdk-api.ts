// ModalApi on the real `modal` SDK (pinned 0.11.x: the package's `latest` tag is someone else's).
// The SDK is an optional package loaded on first use, so workers without Modal never install it;
// the types below describe the part used here (test/backends/modal checks them against the SDK's).
import { loadOptionalSdk, MODAL_SDK, type OptionalSdk } from '../optional-sdk';
import type { ModalApi, ModalCredentials, ModalExecOptions, ModalSandboxSpec } from './modal-api';

/** The `modal` package's exports this file uses. */
export interface ModalModule {
  ModalClient: new (params: { tokenId: string; tokenSecret: string; environment?: string; endpoint?: string }) => ModalClient;
  NotFoundError: new (...args: never[]) => Error;
}

/** What `apps.fromName` returns and `sandboxes.create` takes (opaque here). */
type ModalApp = object;
/** What `images.fromRegistry` returns and `sandboxes.create` takes (opaque here). */
type ModalImage = object;

export interface ModalClient {
  apps: { fromName(name: string, params: { createIfMissing?: boolean; environment?: string }): Promise<ModalApp> };
  images: { fromRegistry(tag: string): ModalImage };
  sandboxes: {
    create(app: ModalApp, image: ModalImage, params: { name?: string; workdir?: string; timeoutMs?: number; command?: string[] }): Promise<Sandbox>;
    fromName(appName: string, name: string, params?: { environment?: string }): Promise<Sandbox>;
    fromId(sandboxId: string): Promise<Sandbox>;
  };
  close(): void;
}

export interface Sandbox {
  readonly sandboxId: string;
  /** null while the sandbox runs, its exit code once it stopped. */
  poll(): Promise<number | null>;
  exec(command: string[], params: { mode: 'text'; stdout: 'pipe'; stderr: 'pipe'; timeoutMs: number }): Promise<ModalProcess>;
  terminate(): Promise<void>;
  detach(): void;
}

export interface ModalProcess {
  stdout: ModalReadStream<string>;
  stderr: ModalReadStream<string>;
  wait(): Promise<number>;
}

export interface ModalReadStream<Chunk> {
  getReader(): { read(): Promise<{ done: boolean; value?: Chunk }>; releaseLock(): void; cancel(): Promise<void> };
}

/** Modal wants whole seconds for lifetimes and exec timeouts. */
function wholeSeconds(ms: number): number {
  return Math.max(1000, Math.ceil(ms / 1000) * 1000);
}

/** Exec timeouts are a backstop: the environment's own (pidfile) kill comes first. */
const EXEC_BACKSTOP_SLACK_MS = 30_000;

export class ModalSdkApi implements ModalApi {
  private module: Promise<ModalModule> | undefined;
  private client: ModalClient | undefined;
  private readonly sandboxes = new Map<string, Sandbox>();

  constructor(
    private readonly credentials: ModalCredentials,
    private readonly sdkPackage: OptionalSdk = MODAL_SDK,
  ) {}

  async createSandbox(spec: ModalSandboxSpec): Promise<string> {
    const client = await this.connect();
    const app = await client.apps.fromName(spec.appName, { createIfMissing: true, ...this.environment() });
    const image = client.images.fromRegistry(spec.image);
    const sandbox = await client.sandboxes.create(app, image, {
      name: spec.name,
      workdir: spec.workdir,
      timeoutMs: wholeSeconds(spec.timeoutMs),
      command: ['sleep', 'infinity'],
    });
    this.sandboxes.set(sandbox.sandboxId, sandbox);
    return sandbox.sandboxId;
  }

  async findSandbox(appName: string, name: string): Promise<string | undefined> {
    const client = await this.connect();
    const { NotFoundError } = await this.sdk();
    try {
      const sandbox = await client.sandboxes.fromName(appName, name, this.environment());
      this.sandboxes.set(sandbox.sandboxId, sandbox);
      return sandbox.sandboxId;
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
  }

  async isRunning(sandboxId: string): Promise<boolean> {
    const { NotFoundError } = await this.sdk();
    try {
      return (await (await this.sandbox(sandboxId)).poll()) === null;
    } catch (error) {
      if (error instanceof NotFoundError) return false;
      throw error;
    }
  }

  async exec(sandboxId: string, argv: string[], options: ModalExecOptions): Promise<number> {
    const sandbox = await this.sandbox(sandboxId);
    const process = await sandbox.exec(argv, {
      mode: 'text',
      stdout: 'pipe',
      stderr: 'pipe',
      timeoutMs: wholeSeconds(options.timeoutMs + EXEC_BACKSTOP_SLACK_MS),
    });
    // Readers must be cancelled on abort, or their promises never settle (a known Modal hang).
    const readers = [pump(process.stdout, options), pump(process.stderr, options)];
    const aborted = new Promise<number>((resolve) => {
      if (options.signal.aborted) resolve(-1);
      else options.signal.addEventListener('abort', () => resolve(-1), { once: true });
    });
    const exitCode = await Promise.race([process.wait(), aborted]);
    if (exitCode === -1) for (const reader of readers) reader.cancel();
    await Promise.all(readers.map((reader) => reader.done));
    return exitCode;
  }

  async terminate(sandboxId: string): Promise<void> {
    const { NotFoundError } = await this.sdk();
    try {
      await (await this.sandbox(sandboxId)).terminate();
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    } finally {
      this.sandboxes.delete(sandboxId);
    }
  }

  async close(): Promise<void> {
    for (const sandbox of this.sandboxes.values()) sandbox.detach();
    this.sandboxes.clear();
    this.client?.close();
    this.client = undefined;
  }

  private async sandbox(sandboxId: string): Promise<Sandbox> {
    const cached = this.sandboxes.get(sandboxId);
    if (cached) return cached;
    const sandbox = await (await this.connect()).sandboxes.fromId(sandboxId);
    this.sandboxes.set(sandboxId, sandbox);
    return sandbox;
  }

  private sdk(): Promise<ModalModule> {
    // A failed load is not kept: installing the package fixes the next call.
    this.module ??= loadOptionalSdk<ModalModule>(this.sdkPackage).catch((error: unknown) => {
      this.module = undefined;
      throw error;
    });
    return this.module;
  }

  private async connect(): Promise<ModalClient> {
    if (this.client) return this.client;
    const { ModalClient } = await this.sdk();
    // Everything explicit: the SDK would otherwise read ~/.modal.toml and MODAL_* variables.
    this.client = new ModalClient({
      tokenId: this.credentials.tokenId,
      tokenSecret: this.credentials.tokenSecret,
      ...this.environment(),
      ...(this.credentials.endpoint ? { endpoint: this.credentials.endpoint } : {}),
    });
    return this.client;
  }

  private environment(): { environment?: string } {
    return this.credentials.environment ? { environment: this.credentials.environment } : {};
  }
}

/** Forwards a text stream chunk by chunk until it ends or is cancelled. */
function pump(stream: ModalReadStream<string>, options: ModalExecOptions): { done: Promise<void>; cancel(): void } {
  const reader = stream.getReader();
  const done = (async () => {
    try {
      for (;;) {
        const { done: finished, value } = await reader.read();
        if (finished) return;
        if (value) options.onOutput(value);
      }
    } catch {
      // Cancelled or the connection dropped: what arrived was forwarded.
    } finally {
      reader.releaseLock();
    }
  })();
  return { done, cancel: () => void reader.cancel().catch(() => undefined) };
}
