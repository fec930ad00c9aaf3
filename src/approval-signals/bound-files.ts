// Which files a command runs besides its program name: the script a shell or interpreter reads,
// the Makefile of `make`, the package.json of npm scripts, a `./program` of the workspace. An
// approval binds to their content as it was when asked, so a file swapped after a human looked is
// refused. Pure: works from the detector's parsed commands.
import type { ShellWord } from './detector/analysis-types';
import { describeScriptInvocation } from './detector/script-invocations';
import type { ParsedCommand } from './verdict';

const MAKEFILES = ['GNUmakefile', 'makefile', 'Makefile'];
const JUSTFILES = ['justfile', 'Justfile', '.justfile'];
const PACKAGE_MANAGERS = new Set(['npm', 'npx', 'yarn', 'pnpm', 'bun']);
const MAX_FILES = 20;

function word(value: string): ShellWord {
  return { raw: value, value, literal: true, quoted: false, variables: [], substitutions: [], glob: false };
}

/** Paths (as written: relative to the command's cwd, absolute, or `~/…`) of the files `commands` run. */
export function filesRunBy(commands: readonly ParsedCommand[]): string[] {
  const files: string[] = [];
  for (const command of commands) files.push(...filesRunByOne(command));
  return [...new Set(files)].slice(0, MAX_FILES);
}

function filesRunByOne(command: ParsedCommand): string[] {
  const { name, args } = command;
  if (!name) return [];
  const files: string[] = [];
  const program = programPath(command);
  if (program) files.push(program);
  if (name === 'source' || name === '.') {
    if (args[0]) files.push(args[0]);
    return files;
  }
  const invocation = describeScriptInvocation(name, args.map(word));
  if (invocation?.source.mode === 'file') files.push(invocation.source.file.value);
  if (name === 'make' || name === 'gmake') files.push(...makeFiles(args));
  if (name === 'just') files.push(...withDirectory(optionValue(args, ['-f', '--justfile']) ?? JUSTFILES, optionValue(args, ['-d', '--working-directory'])));
  if (PACKAGE_MANAGERS.has(name)) files.push(...withDirectory(['package.json'], optionValue(args, ['--prefix', '-C', '--cwd', '--dir'])));
  return files;
}

/** `./x`, `bin/x`, `/abs/x`: a program given by path (PATH lookups are not workspace files). */
function programPath(command: ParsedCommand): string | undefined {
  const name = command.name as string;
  const token = command.text
    .split(/\s+/)
    .map((part) => part.replace(/^['"]|['"]$/g, ''))
    .find((part) => part.includes('/') && part.slice(part.lastIndexOf('/') + 1) === name);
  return token;
}

function makeFiles(args: readonly string[]): string[] {
  const given = optionValues(args, ['-f', '--file', '--makefile']);
  return withDirectory(given.length ? given : MAKEFILES, optionValue(args, ['-C', '--directory']));
}

function withDirectory(files: string | readonly string[], directory: string | undefined): string[] {
  const list = typeof files === 'string' ? [files] : [...files];
  return directory ? list.map((file) => (file.startsWith('/') ? file : `${directory.replace(/\/$/, '')}/${file}`)) : list;
}

function optionValue(args: readonly string[], names: readonly string[]): string | undefined {
  return optionValues(args, names)[0];
}

/** Values of `-f X`, `-fX` (single-letter options) and `--file=X`. */
function optionValues(args: readonly string[], names: readonly string[]): string[] {
  const values: string[] = [];
  args.forEach((arg, index) => {
    for (const name of names) {
      if (arg === name && args[index + 1] !== undefined) values.push(args[index + 1]!);
      else if (name.startsWith('--') && arg.startsWith(`${name}=`)) values.push(arg.slice(name.length + 1));
      else if (!name.startsWith('--') && arg.startsWith(name) && arg.length > name.length) values.push(arg.slice(name.length));
    }
  });
  return values;
}
