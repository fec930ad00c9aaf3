// A long-running worker process: `hermes-temporal worker`, worker.ts and the dev command. The
// SDK runtime turns SIGINT/SIGTERM into a graceful shutdown: no new tasks, running tools get
// `worker.shutdown_grace_seconds` to finish. That it polls and that it stopped are said in a line
// for people on stderr; the log keeps `logging.level` (warnings by default).
import { loadConfig, type LoadedConfig } from '../config/load';
import { createConfiguredLogger } from '../logging';
import { createSessionStore, describeSessionStore } from '../store/create-session-store';
import type { TemporalConnection } from '../temporal/connection';
import { connectTemporalWithRetry } from '../temporal/connect-with-retry';
import { installTemporalRuntime } from '../temporal/runtime';
import { createHermesWorker, releaseWorkerEnvironments } from '../temporal/worker';

export async function serveWorker(config: LoadedConfig, connection: TemporalConnection): Promise<void> {
  const logger = createConfiguredLogger(config);
  installTemporalRuntime(logger);
  const store = createSessionStore(config);
  try {
    const worker = await createHermesWorker({ connection: connection.nativeConnection, config, store, logger });
    say(
      `Worker polling task queue ${config.temporal.task_queue} on ${connection.address} (namespace ${connection.namespace}, ` +
        `store ${describeSessionStore(config)}); Ctrl+C or SIGTERM lets running tools finish, then exits.`,
    );
    await worker.run();
    await releaseWorkerEnvironments(worker);
    say('Worker stopped.');
  } finally {
    await store.close();
  }
}

/** The worker process: configuration from files and environment, a server at TEMPORAL_ADDRESS. */
export async function runConfiguredWorker(): Promise<void> {
  const config = loadConfig();
  const logger = createConfiguredLogger(config);
  installTemporalRuntime(logger);
  // Until connected, SIGINT/SIGTERM end the wait (the SDK's runtime handles them once a worker runs).
  const stop = new AbortController();
  const abort = () => stop.abort();
  process.once('SIGINT', abort);
  process.once('SIGTERM', abort);
  let connection: TemporalConnection;
  try {
    connection = await connectTemporalWithRetry(config, {
      log: (message) => logger.warn(message),
      limitSeconds: config.worker.connect_timeout_seconds,
      signal: stop.signal,
    });
  } finally {
    process.removeListener('SIGINT', abort);
    process.removeListener('SIGTERM', abort);
  }
  try {
    await serveWorker(config, connection);
  } finally {
    await connection.close();
  }
}

function say(line: string): void {
  process.stderr.write(`${line}\n`);
}
