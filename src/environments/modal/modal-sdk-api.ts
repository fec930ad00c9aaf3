// ModalApi on the real `modal` SDK (pinned 0.11.x: the package's `latest` tag is someone else's).
// The SDK is loaded on first use, so workers without Modal never pay for it.
import type * as ModalSdk from 'modal';
import type { ModalClient, ModalReadStream, Sandbox } from 'modal';
import type { ModalApi, ModalCredentials, ModalExecOptions, ModalSandboxSpec } from './modal-api';

type ModalModule = typeof ModalSdk;

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

  constructor(private readonly credentials: ModalCredentials) {}

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
    this.module ??= import('modal');
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
