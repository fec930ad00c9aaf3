// Tools that run any command in a project's environment (`npx CMD`, `npm exec -- CMD`, `uv run
// CMD`, `poetry run CMD`, `bundle exec CMD`, `nix-shell --run CMD`), and cmake's portable command
// mode (`cmake -E rm -r src`). They are build tools, never speculated on, so `npm exec -- rm -rf
// src` passed as safe: the command they run is judged as if run directly. `rimraf DIR` is judged
// as the `rm -rf DIR` it is.
import type { ShellWord } from './analysis-types';
import { optionWord } from './flags';
import { literalWord } from './shell-words';
import type { Unwrapped } from './wrappers';
import { lookupTable } from './lookup-table';

/** Per tool, the verbs after which a command follows ('' for the tool itself, as `npx CMD`). */
const RUNNER_VERBS = lookupTable<readonly string[]>({
  npx: [''],
  pnpx: [''],
  bunx: [''],
  uvx: [''],
  npm: ['exec', 'x'],
  pnpm: ['exec', 'dlx', 'x'],
  yarn: ['exec', 'dlx'],
  bun: ['x', 'exec'],
  uv: ['run'],
  poetry: ['run'],
  pipenv: ['run'],
  pdm: ['run'],
  hatch: ['run'],
  rye: ['run'],
  pixi: ['run', 'exec'],
  pipx: ['run'],
  conda: ['run'],
  mamba: ['run'],
  micromamba: ['run'],
  bundle: ['exec'],
  bundler: ['exec'],
  mise: ['exec', 'x'],
  asdf: ['exec'],
  rbenv: ['exec'],
  pyenv: ['exec'],
  nodenv: ['exec'],
  direnv: ['exec'],
  opam: ['exec'],
  stack: ['exec'],
  cabal: ['exec'],
  devbox: ['run'],
});

/** Options of these tools that hand shell text to a shell. */
const SHELL_TEXT_OPTIONS = lookupTable<readonly string[]>({
  npx: ['-c', '--call'],
  npm: ['-c', '--call'],
  'nix-shell': ['--run', '--command'],
});

/** Their options that take a value: what follows is not yet the command. */
const VALUED_OPTIONS = new Set(['-p', '--package', '-n', '--name', '--prefix', '--with', '--from', '--python', '--spec', '--env', '-e', '--filter', '-C', '--cwd', '--dir', '--directory', '--project', '--manifest-path']);

/** npm packages that are a recursive delete by another name (`npx rimraf dist`). */
const RECURSIVE_DELETERS = new Set(['rimraf', 'del-cli', 'premove']);

export function unwrapProjectRunner(program: string, args: readonly ShellWord[]): Unwrapped | undefined {
  if (program === 'cmake') return unwrapCmakeCommand(args);
  if (RECURSIVE_DELETERS.has(program)) {
    const targets = args.filter((word) => !word.value.startsWith('-'));
    return targets.length ? { kind: 'inner', label: program, inner: [literalWord('rm'), literalWord('-rf'), literalWord('--'), ...targets] } : undefined;
  }
  if (program === 'nix') return unwrapNixCommand(args);
  const shellOptions = SHELL_TEXT_OPTIONS[program];
  const script = shellOptions && optionWord(args, ...shellOptions);
  if (script) return { kind: 'script', label: `${program} ${script.name}`, script: script.word };
  const verbs = RUNNER_VERBS[program];
  if (!verbs) return undefined;
  let index = 0;
  let label = program;
  if (!verbs.includes('')) {
    index = args.findIndex((word) => !word.value.startsWith('-'));
    if (index === -1 || !verbs.includes(args[index]!.value)) return undefined;
    label = `${program} ${args[index]!.value}`;
    index++;
  }
  // direnv exec DIR CMD
  if (program === 'direnv') index++;
  for (; index < args.length; index++) {
    const text = args[index]!.value;
    if (text === '--') {
      index++;
      break;
    }
    if (!text.startsWith('-')) break;
    if (VALUED_OPTIONS.has(text)) index++;
  }
  const inner = args.slice(index);
  return inner.length ? { kind: 'inner', label, inner } : undefined;
}

/** `nix develop -c CMD ARGS`, `nix shell PKG --command CMD ARGS`. */
function unwrapNixCommand(args: readonly ShellWord[]): Unwrapped | undefined {
  const index = args.findIndex((word) => word.value === '-c' || word.value === '--command');
  const inner = index === -1 ? [] : args.slice(index + 1);
  return inner.length ? { kind: 'inner', label: `nix ${args[0]?.value ?? ''} -c`, inner } : undefined;
}

/** cmake -E commands as the programs they stand for; `chdir DIR`, `env`, `time` run what follows. */
const CMAKE_COMMANDS = lookupTable<readonly string[]>({
  rm: ['rm'],
  remove: ['rm', '-f'],
  remove_directory: ['rm', '-rf'],
  rename: ['mv'],
  copy: ['cp'],
  copy_directory: ['cp', '-r'],
  copy_directory_if_different: ['cp', '-r'],
  copy_if_different: ['cp'],
  create_symlink: ['ln', '-s'],
  create_hardlink: ['ln'],
  touch: ['touch'],
  make_directory: ['mkdir', '-p'],
});

function unwrapCmakeCommand(args: readonly ShellWord[]): Unwrapped | undefined {
  if (args[0]?.value !== '-E' || !args[1]) return undefined;
  const command = args[1].value;
  const rest = args.slice(2);
  if (command === 'chdir' && rest.length > 1) return { kind: 'inner', label: 'cmake -E chdir', inner: rest.slice(1) };
  if (command === 'time' && rest.length) return { kind: 'inner', label: 'cmake -E time', inner: rest };
  if (command === 'env') {
    const start = rest.findIndex((word) => !word.value.startsWith('-') && !/^[A-Za-z_]\w*=/.test(word.value));
    return start === -1 ? undefined : { kind: 'inner', label: 'cmake -E env', inner: rest.slice(start) };
  }
  const program = CMAKE_COMMANDS[command];
  return program ? { kind: 'inner', label: 'cmake -E', inner: [...program.map((word) => literalWord(word)), ...rest] } : undefined;
}
