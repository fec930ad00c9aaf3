#!/usr/bin/env node
// The `hermes-temporal` command.
import { Command } from 'commander';
import { ConfigError } from '../config/load';
import { registerApprovalCommands } from './commands/approvals';
import { registerApproverCommands } from './commands/approver';
import { registerCheckCommand } from './commands/check-command';
import { registerDemoCommand } from './commands/demo';
import { registerDevCommand } from './commands/dev';
import { registerPluginsCommand } from './commands/plugins';
import { registerRunCommand } from './commands/run';
import { registerScriptedModelCommand } from './commands/scripted-model';
import { registerSessionCommands } from './commands/sessions';
import { registerTemporalCliCommand } from './commands/temporal-cli';
import { registerToolsCommand } from './commands/tools';
import { registerWorkerCommand } from './commands/worker';

export function buildProgram(): Command {
  const program = new Command('hermes-temporal')
    .description('Durable LLM-agent sessions on Temporal: every tool call an activity, visible in the Web UI')
    .showHelpAfterError();
  registerRunCommand(program);
  registerDemoCommand(program);
  registerDevCommand(program);
  registerWorkerCommand(program);
  registerSessionCommands(program);
  registerApprovalCommands(program);
  registerApproverCommands(program);
  registerCheckCommand(program);
  registerToolsCommand(program);
  registerPluginsCommand(program);
  registerScriptedModelCommand(program);
  registerTemporalCliCommand(program);
  return program;
}

if (require.main === module) {
  buildProgram()
    .parseAsync(process.argv)
    .catch((error: unknown) => {
      const message = error instanceof ConfigError ? error.message : error instanceof Error ? error.message : String(error);
      console.error(`hermes-temporal: ${message}`);
      process.exit(1);
    });
}
