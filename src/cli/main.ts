#!/usr/bin/env -S node --max-semi-space-size=2
// The `hermes-temporal` command. Only the module of the command being run is loaded; the
// top-level help is built from the command table (command-table.ts). V8's young generation is
// capped at 2 MB a semi-space (the line above; `npm run worker` and the image do the same): a
// worker holding thousands of sessions otherwise keeps hundreds of MB of young garbage resident.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Command, Option } from 'commander';
import { COMMAND_MODULES, commandName, moduleOf } from './command-table';

/**
 * The program for `argv` (user arguments, without node and the script): the one command named
 * there fully defined, the others as help entries; with no `argv`, every command fully defined.
 */
export async function buildProgram(argv?: readonly string[]): Promise<Command> {
  const program = new Command('hermes-temporal')
    .description('Durable LLM-agent sessions on Temporal: every tool call an activity, visible in the Web UI')
    .version(packageVersion(), '-V, --version', 'print the version')
    .addOption(
      new Option('--log-format <format>', 'how logs reach stderr: short lines (pretty, the default) or JSON lines (HERMES_LOG_FORMAT)')
        .choices(['pretty', 'json']),
    )
    .showHelpAfterError();
  // Before any command loads its configuration, which reads the variable like every other setting.
  program.hook('preAction', () => {
    const { logFormat } = program.opts<{ logFormat?: string }>();
    if (logFormat) process.env.HERMES_LOG_FORMAT = logFormat;
  });
  const wanted = argv ? moduleOf(requestedCommand(argv)) : undefined;
  const placeholderTerms = new Map<Command, string>();
  for (const module of COMMAND_MODULES) {
    if (!argv || module === wanted) {
      (await module.load())(program);
      continue;
    }
    for (const { term, description } of module.commands) {
      placeholderTerms.set(program.command(commandName(term)).description(description), term);
    }
  }
  const help = program.createHelp();
  program.configureHelp({ subcommandTerm: (command) => placeholderTerms.get(command) ?? help.subcommandTerm(command) });
  if (process.env.HERMES_STARTUP_TRACE) {
    // For bench/cli-startup.ts: when the command's own code begins, in ms since the process started.
    program.hook('preAction', () => {
      process.stderr.write(`hermes-temporal: command started at ${performance.now().toFixed(1)} ms\n`);
    });
  }
  return program;
}

/** Options before the command that take a value as the next argument (`--log-format json`). */
const GLOBAL_VALUE_OPTIONS = new Set(['--log-format']);

/** The command the arguments name (`help <command>` names that command), or '' for none. */
export function requestedCommand(argv: readonly string[]): string {
  const words: string[] = [];
  for (let index = 0; index < argv.length && words.length < 2; index++) {
    const argument = argv[index]!;
    if (GLOBAL_VALUE_OPTIONS.has(argument) && words.length === 0) index++;
    else if (!argument.startsWith('-')) words.push(argument);
  }
  const [first, second] = words;
  return first === 'help' ? (second ?? '') : (first ?? '');
}

function packageVersion(): string {
  // dist/src/cli or src/cli: the package file is two or three folders up.
  for (const up of ['../..', '../../..']) {
    try {
      const manifest = JSON.parse(readFileSync(path.join(__dirname, up, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (manifest.name === 'hermes-temporal' && manifest.version) return manifest.version;
    } catch {
      // Not here.
    }
  }
  return 'unknown';
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const program = await buildProgram(argv);
  await program.parseAsync(process.argv);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(`hermes-temporal: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
