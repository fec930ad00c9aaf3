// Starts a hermes-temporal worker from configuration (config files + environment): it connects to
// TEMPORAL_ADDRESS, serves the session workflow and tool activities on the configured task
// queue, and on SIGINT/SIGTERM lets running tools finish within the grace period.
import { runConfiguredWorker } from './src/cli/serve-worker';

runConfiguredWorker().catch((error: unknown) => {
  console.error(`hermes-temporal worker: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
