// Shell text a shell keeps and runs later rather than where it is written: a `trap` handler, and
// the prompt variables (`PROMPT_COMMAND` runs before each prompt, a `$(...)` in PS0-PS4 when the
// prompt is shown). Set by one input and run by a harmless later one (`exit`, `echo`) in a shell
// the model keeps open, it is judged where it is set, like the command it is. So are variables
// whose value a program runs as a command: `GIT_EXTERNAL_DIFF='rm -rf src' git diff` deletes;
// and those naming a file a program writes: `HISTFILE=~/.bashrc bash -i` writes its history into
// a start-up file, judged as a write of it.
import type { ShellWord } from './analysis-types';
import { shellEscapes } from './command-languages';
import { lookupTable } from './lookup-table';
import type { SyntaxNode } from './shell-parser';
import { buildWord, type WordHooks } from './shell-words';

const PROMPT_CODE = /^PROMPT_COMMAND(?:\[[^\]]*\])?$/;
const PROMPT_STRING = /^PS[0-4]$/;
/** Builtins whose `NAME=value` arguments assign variables. */
const DECLARING = new Set(['export', 'declare', 'typeset', 'readonly', 'local']);
/**
 * Variables whose value a program acts on: runs it as a command (git's, pagers, editors, askpass
 * helpers, remote shells), or writes the file it names (shells' and REPLs' history files, TLS key logs).
 */
const VARIABLES_BY_USE = {
  command: [
    'GIT_EXTERNAL_DIFF', 'GIT_SSH_COMMAND', 'GIT_SSH', 'GIT_PAGER', 'GIT_EDITOR', 'GIT_SEQUENCE_EDITOR', 'GIT_ASKPASS', 'GIT_PROXY_COMMAND',
    'PAGER', 'MANPAGER', 'SYSTEMD_PAGER', 'EDITOR', 'VISUAL', 'FCEDIT', 'SSH_ASKPASS', 'SUDO_ASKPASS', 'RSYNC_RSH', 'RSYNC_CONNECT_PROG',
    'CVS_RSH', 'LESSOPEN', 'LESSCLOSE', 'BROWSER',
  ],
  file: [
    'HISTFILE', 'LESSHISTFILE', 'PYTHON_HISTORY', 'NODE_REPL_HISTORY', 'MYSQL_HISTFILE', 'PSQL_HISTORY', 'SQLITE_HISTORY', 'REDISCLI_HISTFILE',
    'GDBHISTFILE', 'R_HISTFILE', 'SSLKEYLOGFILE',
  ],
} as const;
type VariableUse = keyof typeof VARIABLES_BY_USE;
const VARIABLE_USE = lookupTable<VariableUse>(
  Object.fromEntries(Object.entries(VARIABLES_BY_USE).flatMap(([use, names]) => names.map((name) => [name, use as VariableUse]))),
);

function variableUse(name: string): VariableUse | undefined {
  return /^GIT_CONFIG_VALUE_\d+$/.test(name) ? 'command' : VARIABLE_USE[name];
}

/** `GIT_CONFIG_PARAMETERS`: `'key'='value'` pairs, as `git -c` passes them on. */
const CONFIG_PARAMETER_VALUE = /'[^']*'='((?:[^']|'\\'')*)'/g;
const SUBSTITUTION = /\$\(((?:[^()]|\([^()]*\))*)\)|`([^`]*)`/g;

/** The `NAME=value` arguments of `export`, `declare` and the like. */
export function declaredAssignments(program: string | null, argv: readonly ShellWord[]): { name: string; value: string }[] {
  if (program === null || !DECLARING.has(program)) return [];
  return assignmentWords(argv.slice(1));
}

/** `NAME=value` words, as `env` takes them before its command. */
export function assignmentWords(words: readonly ShellWord[]): { name: string; value: string }[] {
  return words.flatMap((word) => {
    const match = /^([^=\s]+)=(.*)$/s.exec(word.guess ?? word.value);
    return match ? [{ name: match[1]!, value: match[2]! }] : [];
  });
}

/** A history file of a home folder (`~/.bash_history`, `/root/.python_history`, `~/.lesshst`): where a history variable belongs. */
const HOME_HISTORY_FILE = /^(?:~|\$HOME|\$\{HOME\}|\/root|\/(?:home|Users)\/[^/]+)\/\.[\w.-]*(?:history|hst)$/;

/** The file a program will write because the variable points it there (`HISTFILE=~/.bashrc`). */
export function filesNamedByAssignment(name: string, value: string | readonly string[]): string[] {
  const values = typeof value === 'string' ? [value] : value;
  return variableUse(name) === 'file' ? values.filter((file) => file.trim() !== '' && !HOME_HISTORY_FILE.test(file)) : [];
}

/** The code an assignment (of a value, or an array's elements) leaves for later: a prompt's, or a command variable's. */
export function deferredCodeOfAssignment(name: string, value: string | readonly string[]): string[] {
  if (typeof value !== 'string') return value.flatMap((element) => deferredCodeOfAssignment(name, element));
  if (PROMPT_CODE.test(name)) return value.trim() ? [value] : [];
  // LESSOPEN's `|` (or `||`) means "run this"; BROWSER is a list of commands.
  if (variableUse(name) === 'command') {
    const codes = name === 'BROWSER' ? value.split(':') : [value];
    return codes.map((code) => code.replace(/^\|{1,2}/, '')).filter((code) => code.trim() !== '');
  }
  // less takes its options from LESS too, `+CMD` included (up to a `$` or the end): `LESS='+!CMD' git log`
  // runs CMD in git's pager.
  if (name === 'LESS') return [...value.matchAll(/(?:^|\s)\+([^$]*)/g)].flatMap((match) => shellEscapes('less', match[1]!));
  if (name === 'GIT_CONFIG_PARAMETERS') return [...value.matchAll(CONFIG_PARAMETER_VALUE)].map((match) => match[1]!.replace(/'\\''/g, "'"));
  if (!PROMPT_STRING.test(name)) return [];
  return [...value.matchAll(SUBSTITUTION)].map((match) => match[1] ?? match[2] ?? '').filter((code) => code.trim() !== '');
}

/** The handler of `trap [-lpP] [--] [handler] signal...`: one operand alone, or `-`, resets a signal and runs nothing. */
export function trapHandler(argv: readonly ShellWord[]): string[] {
  const words = argv.slice(1).map((word) => word.guess ?? word.value);
  let index = 0;
  while (index < words.length && /^-[lpP]+$/.test(words[index]!)) index += 1;
  if (words[index] === '--') index += 1;
  const operands = words.slice(index);
  if (operands.length < 2 || operands[0] === '-' || operands[0]!.trim() === '') return [];
  return [operands[0]!];
}

/** The command `complete -C CMD` or `compgen -C CMD` runs when a word is completed (the shell runs it later). */
export function completionCommand(argv: readonly ShellWord[]): string[] {
  const words = argv.slice(1).map((word) => word.guess ?? word.value);
  const codes: string[] = [];
  for (let index = 0; index < words.length; index++) {
    const attached = /^-[a-zA-Z]*C(.*)$/s.exec(words[index]!);
    if (attached) codes.push(attached[1] || words[++index] || '');
  }
  return codes.filter((code) => code.trim() !== '');
}

/** `fc` re-runs commands from the shell's history (after an editor, or `-s` with a substitution), unless it only lists them (`-l`). */
export function rerunsHistory(argv: readonly ShellWord[]): boolean {
  return !argv.slice(1).some((word) => /^-[a-zA-Z]*l/.test(word.value));
}

/** What an assignment stores: its value, or each element of an array `(a b)`. */
export function assignedTexts(value: SyntaxNode | null, hooks: WordHooks): string[] {
  if (!value) return [];
  const words = value.type === 'array' ? value.namedChildren : [value];
  return words.map((node) => {
    const word = buildWord(node, hooks);
    return word.guess ?? word.value;
  });
}
