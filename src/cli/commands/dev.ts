// `hermes-temporal dev`: a persistent local Temporal dev server (SQLite file, Web UI) plus a
// worker, up until Ctrl+C. Other commands reach it with TEMPORAL_ADDRESS.
import type { Command } from 'commander';
import { loadConfig } from '../../config/load';
import { createConfiguredLogger } from '../../logging';
import { connectTemporal } from '../../temporal/connection';
import { installTemporalRuntime } from '../../temporal/runtime';
import { serveWorker } from '../serve-worker';

export function registerDevCommand(program: Command): void {
  program
    .command('dev')
    .description('Start a persistent Temporal dev server with the Web UI and a worker (Ctrl+C stops both)')
    .option('--port <port>', 'gRPC port of the dev server')
    .option('--ui-port <port>', 'port of the Web UI')
    .action(async (flags: { port?: string; uiPort?: string }) => {
      const config = loadConfig({ env: { ...process.env, TEMPORAL_ADDRESS: '' } });
      installTemporalRuntime(createConfiguredLogger(config));
      const devServer = config.temporal.dev_server;
      const connection = await connectTemporal(config, {
        devServer: {
          port: flags.port ? Number(flags.port) : devServer.port,
          uiPort: flags.uiPort ? Number(flags.uiPort) : devServer.ui_port,
          dbFile: devServer.db_file,
        },
        log: (message) => console.log(message),
        devServerKind: 'dev',
      });
      console.log(`Temporal dev server: ${connection.address} (data in ${devServer.db_file})`);
      console.log(`Web UI:              ${connection.uiUrl ?? '(headless)'}`);
      console.log(`Run sessions against it with: export TEMPORAL_ADDRESS=${connection.address}`);
      try {
        await serveWorker(config, connection);
      } finally {
        await connection.close();
      }
    });
}
