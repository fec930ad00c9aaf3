// The CLI loads only the module of the command being run; the top-level help it shows without
// loading the others must be the help the fully loaded program would show.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { buildProgram, requestedCommand } from '../../../src/cli/main';

test('the top-level help built from the command table equals the help of every command loaded', async () => {
  const lazy = await buildProgram(['--help']);
  const full = await buildProgram();
  expect(lazy.helpInformation()).toBe(full.helpInformation());
});

test('each command found by name is fully defined (its own options and help), the others are not loaded', async () => {
  const program = await buildProgram(['approve', 'some-session']);
  const approve = program.commands.find((command) => command.name() === 'approve')!;
  expect(approve.options.map((option) => option.long)).toContain('--once');
  const run = program.commands.find((command) => command.name() === 'run')!;
  expect(run.options).toEqual([]);
});

test('the command is found after the global --log-format option, in either of its forms', () => {
  expect(requestedCommand(['--log-format', 'json', 'check-command', 'ls'])).toBe('check-command');
  expect(requestedCommand(['--log-format=json', 'tools'])).toBe('tools');
  expect(requestedCommand(['run', '--log-format', 'json', 'a task'])).toBe('run');
  expect(requestedCommand(['--log-format', 'json', 'help', 'run'])).toBe('run');
});

test('an unknown --log-format is refused by the option itself, naming the choices', async () => {
  const program = await buildProgram(['--log-format', 'xml', 'sessions']);
  program.exitOverride().configureOutput({ writeErr: () => undefined, outputError: () => undefined });
  await expect(program.parseAsync(['--log-format', 'xml', 'sessions'], { from: 'user' })).rejects.toThrow(
    /'--log-format <format>' argument 'xml' is invalid\. Allowed choices are pretty, json/,
  );
});

test('`help <command>` loads that command', async () => {
  const program = await buildProgram(['help', 'run']);
  const run = program.commands.find((command) => command.name() === 'run')!;
  expect(run.options.map((option) => option.long)).toContain('--max-turns');
});

test('building the program for --help loads neither the Temporal SDK nor the shell parser', () => {
  const main = path.resolve(__dirname, '../../../src/cli/main.ts');
  const probe = `
    const Module = require('node:module');
    const loaded = [];
    const original = Module._load;
    Module._load = function (request, ...rest) { loaded.push(request); return original.call(this, request, ...rest); };
    require(${JSON.stringify(main)}).buildProgram(['--help']).then(() => console.log(JSON.stringify(loaded)));
  `;
  const output = execFileSync(process.execPath, ['--require', 'tsx/cjs', '-e', probe], { encoding: 'utf8' });
  const loaded = JSON.parse(output) as string[];
  expect(loaded).toContain('commander');
  expect(loaded.filter((request) => /@temporalio\/|web-tree-sitter|openai|better-sqlite3|pino/.test(request))).toEqual([]);
});
