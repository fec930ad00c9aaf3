// `hermes-temporal worker`: serve sessions from a Temporal server (TEMPORAL_ADDRESS).
import type { Command } from 'commander';
import { runConfiguredWorker } from '../serve-worker';

export function registerWorkerCommand(program: Command): void {
  program
    .command('worker')
    .description('Run a worker that serves sessions from TEMPORAL_ADDRESS (or a running hermes-temporal dev) until SIGINT/SIGTERM')
    .action(runConfiguredWorker);
}
