// `hermes-temporal worker`: serve sessions from a Temporal server (TEMPORAL_ADDRESS).
import type { Command } from 'commander';
import { loadConfig } from '../../config/load';
import { createLogger } from '../../logging';
import { connectTemporal } from '../../temporal/connection';
import { installTemporalRuntime } from '../../temporal/runtime';
import { serveWorker } from '../serve-worker';

export function registerWorkerCommand(program: Command): void {
  program
    .command('worker')
    .description('Run a worker that serves sessions from TEMPORAL_ADDRESS until SIGINT/SIGTERM')
    .action(async () => {
      const config = loadConfig();
      installTemporalRuntime(createLogger({ level: config.logging.level }));
      const connection = await connectTemporal(config, { allowEmbedded: false });
      try {
        await serveWorker(config, connection);
      } finally {
        await connection.close();
      }
    });
}
