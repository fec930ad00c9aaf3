// `hermes-temporal temporal-cli`: where the Temporal CLI comes from (installing it into the
// project venv when needed). .ci/run uses it, so CI and users share one resolution logic.
import type { Command } from 'commander';
import { loadConfig } from '../../config/load';
import { resolveTemporalCli } from '../../temporal/cli-binary';

export function registerTemporalCliCommand(program: Command): void {
  program
    .command('temporal-cli')
    .description('Print the path of the Temporal CLI used for dev servers, installing it if needed')
    .option('--no-install', 'only look, do not install')
    .action((flags: { install: boolean }) => {
      const cli = resolveTemporalCli({
        configuredPath: loadConfig().temporal.cli_path,
        install: flags.install,
        log: (message) => console.error(message),
      });
      if (cli.kind === 'binary') console.log(cli.path);
      else {
        console.error('No temporal CLI found; the Temporal SDK will download one when a dev server starts (needs internet).');
        process.exitCode = 1;
      }
    });
}
