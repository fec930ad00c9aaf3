// The per-worker pool of live MCP connections, keyed by server name + hash of the resolved
// config, reused across calls and sessions. A connection unused for its idle timeout is closed;
// one whose transport closed or failed is marked broken and evicted once no call uses it. After
// a failure, reconnecting waits 1 s, 2 s, 4 s … up to 60 s; calls in between are refused at once.
// Activities use it; workflow code never does.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { silentLogger, type Logger } from '../logging';
import { CircuitBreaker } from './circuit-breaker';
import type { ResolvedServer } from './resolved-server';

const RECONNECT_INITIAL_MS = 1000;
const RECONNECT_MAX_MS = 60_000;
const INITIAL_CONNECT_ATTEMPTS = 3;
const SWEEP_INTERVAL_MS = 10_000;

export type OpenTransport = (server: ResolvedServer) => Transport;

interface Connection {
  client: Client;
  inUse: number;
  lastUsedMs: number;
  broken: boolean;
  /** The transport closed itself on a message longer than it may hold (the stdio transport's 10 MB). */
  overflowed?: Error;
}

/** Thrown when a server is in its reconnect backoff: the caller reports "transport is down". */
export class McpTransportDownError extends Error {}

/**
 * Thrown when a call's connection closed because the server sent a message too long for the
 * transport's buffer: the server is alive, its reply was too large (not "the transport is down").
 */
export class McpReplyTooLargeError extends Error {}

/** How the SDK's stdio transport says a message outgrew its read buffer (it then closes). */
const READ_BUFFER_OVERFLOW = /ReadBuffer exceeded maximum size of (\d+) bytes/;

export class McpConnectionPool {
  private readonly connections = new Map<string, Promise<Connection>>();
  private readonly backoff = new Map<string, { failures: number; nextAttemptMs: number }>();
  private readonly breakers = new Map<string, CircuitBreaker>();
  /** When each server last said its tool list changed (worker clock). */
  private readonly toolsChangedAt = new Map<string, number>();
  /** Each server's idle timeout, as its config last said. */
  private readonly idleTimeouts = new Map<string, number>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly openTransport: OpenTransport,
    private readonly logger: Logger = silentLogger,
    private readonly now: () => number = Date.now,
    /** What a transport that failed to connect can tell about why (a stdio server's stderr). */
    private readonly describeFailure?: (transport: Transport) => string,
  ) {
    this.sweeper = setInterval(() => void this.sweep(), SWEEP_INTERVAL_MS);
    this.sweeper.unref();
  }

  breaker(server: ResolvedServer): CircuitBreaker {
    let breaker = this.breakers.get(server.key);
    if (!breaker) this.breakers.set(server.key, (breaker = new CircuitBreaker(this.now)));
    return breaker;
  }

  /** Whether the server announced a new tool list after `sinceMs`. */
  toolsChangedSince(server: ResolvedServer, sinceMs: number): boolean {
    return (this.toolsChangedAt.get(server.key) ?? -Infinity) > sinceMs;
  }

  /** Runs `use` with a live client for the server, connecting (or reconnecting) first when needed. */
  async withClient<T>(server: ResolvedServer, use: (client: Client) => Promise<T>, options: { connectTimeoutMs: number; signal?: AbortSignal }): Promise<T> {
    const connection = await this.acquire(server, options);
    connection.inUse += 1;
    try {
      return await use(connection.client);
    } catch (error) {
      const overflow = connection.overflowed && READ_BUFFER_OVERFLOW.exec(connection.overflowed.message);
      if (overflow) throw new McpReplyTooLargeError(`the server sent a message over the ${Number(overflow[1]) / (1024 * 1024)} MB a reply may take`, { cause: error });
      throw error;
    } finally {
      connection.inUse -= 1;
      connection.lastUsedMs = this.now();
      if (connection.broken && connection.inUse === 0) await this.evict(server.key, connection);
    }
  }

  /** A call failed in a way that says the connection is gone (closed pipe, HTTP errors): drop it. */
  async markBroken(server: ResolvedServer): Promise<void> {
    const pending = this.connections.get(server.key);
    const connection = pending && (await pending.catch(() => undefined));
    if (!connection) return;
    // The next call reconnects at once; only failed reconnections back off.
    connection.broken = true;
    if (connection.inUse === 0) await this.evict(server.key, connection);
  }

  /** Closes idle connections and broken ones nobody uses. */
  async sweep(): Promise<void> {
    for (const [key, pending] of [...this.connections]) {
      const connection = await pending.catch(() => undefined);
      if (!connection) continue;
      const idleMs = this.idleTimeouts.get(key) ?? 300_000;
      if (connection.inUse === 0 && (connection.broken || this.now() - connection.lastUsedMs >= idleMs)) await this.evict(key, connection);
    }
  }

  get size(): number {
    return this.connections.size;
  }

  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    const all = [...this.connections];
    this.connections.clear();
    await Promise.all(all.map(async ([, pending]) => (await pending.catch(() => undefined))?.client.close().catch(() => undefined)));
  }

  private async acquire(server: ResolvedServer, options: { connectTimeoutMs: number; signal?: AbortSignal }): Promise<Connection> {
    this.idleTimeouts.set(server.key, server.config.idle_timeout_seconds * 1000);
    const existing = this.connections.get(server.key);
    if (existing) {
      const connection = await existing.catch(() => undefined);
      if (connection && !connection.broken) return connection;
      if (this.connections.get(server.key) === existing) this.connections.delete(server.key);
    }
    const backoff = this.backoff.get(server.key);
    if (backoff && this.now() < backoff.nextAttemptMs) throw new McpTransportDownError(`reconnecting in ${Math.ceil((backoff.nextAttemptMs - this.now()) / 1000)} s`);
    const pending = this.connect(server, options);
    this.connections.set(server.key, pending);
    pending.catch(() => {
      if (this.connections.get(server.key) === pending) this.connections.delete(server.key);
    });
    return pending;
  }

  private async connect(server: ResolvedServer, options: { connectTimeoutMs: number; signal?: AbortSignal }): Promise<Connection> {
    // A first connection is tried three times; a reconnection once per backoff step.
    const attempts = this.backoff.has(server.key) ? 1 : INITIAL_CONNECT_ATTEMPTS;
    let lastError: unknown;
    for (let attempt = 1; attempt <= attempts; attempt += 1) {
      if (options.signal?.aborted) break;
      try {
        const connection = await this.connectOnce(server, options);
        this.backoff.delete(server.key);
        return connection;
      } catch (error) {
        lastError = error;
        this.logger.warn({ server: server.name, attempt, error: error instanceof Error ? error.message : String(error) }, 'MCP server connection failed');
        if (attempt < attempts) await sleep(RECONNECT_INITIAL_MS * attempt, options.signal);
      }
    }
    this.noteFailure(server.key);
    throw lastError instanceof Error ? lastError : new Error(String(lastError));
  }

  private async connectOnce(server: ResolvedServer, options: { connectTimeoutMs: number; signal?: AbortSignal }): Promise<Connection> {
    const client = new Client({ name: 'hermes-temporal', version: '0.1.0' }, { capabilities: {} });
    const connection: Connection = { client, inUse: 0, lastUsedMs: this.now(), broken: false };
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      this.toolsChangedAt.set(server.key, this.now());
    });
    client.onerror = (error) => {
      if (READ_BUFFER_OVERFLOW.test(error.message)) connection.overflowed ??= error;
    };
    client.onclose = () => {
      if (!connection.broken) this.logger.info({ server: server.name }, 'MCP server connection closed');
      connection.broken = true;
    };
    const transport = this.openTransport(server);
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), options.connectTimeoutMs);
    try {
      await client.connect(transport, { timeout: options.connectTimeoutMs, signal: anySignal(timeout.signal, options.signal) });
    } catch (error) {
      await client.close().catch(() => undefined);
      const stderr = this.describeFailure?.(transport);
      throw stderr && error instanceof Error ? new Error(`${error.message} (server stderr: ${stderr})`, { cause: error }) : error;
    } finally {
      clearTimeout(timer);
    }
    return connection;
  }

  private noteFailure(key: string): void {
    const failures = (this.backoff.get(key)?.failures ?? 0) + 1;
    const delay = Math.min(RECONNECT_INITIAL_MS * 2 ** (failures - 1), RECONNECT_MAX_MS);
    this.backoff.set(key, { failures, nextAttemptMs: this.now() + delay });
  }

  private async evict(key: string, connection: Connection): Promise<void> {
    const pending = this.connections.get(key);
    if (pending && (await pending.catch(() => undefined)) === connection) this.connections.delete(key);
    await connection.client.close().catch(() => undefined);
  }
}

function anySignal(first: AbortSignal, second: AbortSignal | undefined): AbortSignal {
  return second ? AbortSignal.any([first, second]) : first;
}

function sleep(milliseconds: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, milliseconds);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
