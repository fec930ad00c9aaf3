// A long-running worker process: `hermes-temporal worker`, worker.ts and the dev command. The
// SDK runtime turns SIGINT/SIGTERM into a graceful shutdown: no new tasks, running tools get
// `worker.shutdown_grace_seconds` to finish.
import type { LoadedConfig } from '../config/load';
import { createLogger } from '../logging';
import { SqliteSessionStore } from '../store/sqlite-session-store';
import type { TemporalConnection } from '../temporal/connection';
import { installTemporalRuntime } from '../temporal/runtime';
import { createHermesWorker } from '../temporal/worker';

export async function serveWorker(config: LoadedConfig, connection: TemporalConnection): Promise<void> {
  const logger = createLogger({ level: config.logging.level === 'warn' ? 'info' : config.logging.level });
  installTemporalRuntime(logger);
  const store = new SqliteSessionStore(config.store.path);
  try {
    const worker = await createHermesWorker({ connection: connection.nativeConnection, config, store, logger });
    logger.info(
      { address: connection.address, namespace: connection.namespace, taskQueue: config.temporal.task_queue, store: config.store.path },
      'hermes-temporal worker polling; SIGINT/SIGTERM drains running tools and exits',
    );
    await worker.run();
    logger.info('worker stopped');
  } finally {
    await store.close();
  }
}
