// A worker waits for its Temporal server rather than exiting: in a cluster the server restarts
// (or starts after the workers), so connecting is retried with backoff, saying what it waits
// for, up to `worker.connect_timeout_seconds` (0: for ever). SIGINT/SIGTERM end the wait.
import type { LoadedConfig } from '../config/load';
import { connectTemporal, findRunningDevServer, type TemporalConnection } from './connection';

/** One attempt's bound: a down server refuses at once, an unreachable one is given this long. */
const ATTEMPT_TIMEOUT_MS = 3000;

export interface ConnectRetryOptions {
  log: (message: string) => void;
  /** Give up after this long; 0 waits for ever. */
  limitSeconds: number;
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** Ends the wait (the worker was asked to stop). */
  signal?: AbortSignal;
}

export async function connectTemporalWithRetry(given: LoadedConfig, options: ConnectRetryOptions): Promise<TemporalConnection> {
  const config = withRunningDevServer(given);
  const address = config.temporal.address;
  if (!address) return connectTemporal(config, { allowEmbedded: false });
  const startedAt = Date.now();
  const limitMs = options.limitSeconds * 1000;
  let delayMs = options.initialDelayMs ?? 1000;
  for (let attempt = 1; ; attempt += 1) {
    try {
      const connection = await connectTemporal(config, { allowEmbedded: false, connectTimeoutMs: ATTEMPT_TIMEOUT_MS });
      if (attempt > 1) options.log(`Connected to the Temporal server at ${address} after ${attempt} attempts`);
      return connection;
    } catch (error) {
      const reason = (error as Error).message.split('\n')[0];
      const waited = Date.now() - startedAt;
      if (limitMs > 0 && waited + delayMs > limitMs) {
        throw new Error(`Gave up waiting for the Temporal server at ${address} after ${Math.round(waited / 1000)} s (worker.connect_timeout_seconds=${options.limitSeconds}): ${reason}`);
      }
      const limit = limitMs > 0 ? `giving up after ${options.limitSeconds} s (worker.connect_timeout_seconds)` : 'waiting for ever (worker.connect_timeout_seconds=0)';
      options.log(`Waiting for the Temporal server at ${address} (namespace ${config.temporal.namespace}): attempt ${attempt} failed: ${reason}; retrying in ${Math.round(delayMs / 1000)} s, ${limit}`);
      await sleep(delayMs, options.signal);
      if (options.signal?.aborted) throw new Error(`Stopped while waiting for the Temporal server at ${address}`);
      delayMs = Math.min(delayMs * 2, options.maxDelayMs ?? 30_000);
    }
  }
}

function sleep(milliseconds: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, milliseconds);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}

/**
 * Without TEMPORAL_ADDRESS a worker joins the `hermes-temporal dev` of its home, as the client
 * commands do: the error for a missing server tells the user to start one, so that must work.
 */
function withRunningDevServer(config: LoadedConfig): LoadedConfig {
  if (config.temporal.address) return config;
  const dev = findRunningDevServer(config.home);
  return dev ? { ...config, temporal: { ...config.temporal, address: dev.address, ...(dev.uiUrl ? { ui_url: dev.uiUrl } : {}) } } : config;
}
