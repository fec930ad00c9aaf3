// Starts a hermes-temporal worker from configuration (config files + environment): it connects to
// TEMPORAL_ADDRESS, serves the session workflow and tool activities on the configured task
// queue, and on SIGINT/SIGTERM lets running tools finish within the grace period.
import { loadConfig } from './src/config/load';
import { createLogger } from './src/logging';
import { connectTemporal } from './src/temporal/connection';
import { installTemporalRuntime } from './src/temporal/runtime';
import { serveWorker } from './src/cli/serve-worker';

async function main(): Promise<void> {
  const config = loadConfig();
  installTemporalRuntime(createLogger({ level: config.logging.level }));
  const connection = await connectTemporal(config, { allowEmbedded: false });
  try {
    await serveWorker(config, connection);
  } finally {
    await connection.close();
  }
}

main().catch((error: unknown) => {
  console.error(`hermes-temporal worker: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
