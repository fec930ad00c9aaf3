// Shell text a shell keeps and runs later rather than where it is written: a `trap` handler, and
// the prompt variables (`PROMPT_COMMAND` runs before each prompt, a `$(...)` in PS0-PS4 when the
// prompt is shown). Set by one input and run by a harmless later one (`exit`, `echo`) in a shell
// the model keeps open, it is judged where it is set, like the command it is. So are variables
// whose value a program runs as a command: `GIT_EXTERNAL_DIFF='rm -rf src' git diff` deletes.
import type { ShellWord } from './analysis-types';
import type { SyntaxNode } from './shell-parser';
import { buildWord, type WordHooks } from './shell-words';

const PROMPT_CODE = /^PROMPT_COMMAND(?:\[[^\]]*\])?$/;
const PROMPT_STRING = /^PS[0-4]$/;
/** Builtins whose `NAME=value` arguments assign variables. */
const DECLARING = new Set(['export', 'declare', 'typeset', 'readonly', 'local']);
/** Variables whose value programs run as a command: git's, pagers, editors, askpass helpers, remote shells. */
const COMMAND_VARIABLE =
  /^(?:GIT_(?:EXTERNAL_DIFF|SSH_COMMAND|SSH|PAGER|EDITOR|SEQUENCE_EDITOR|ASKPASS|PROXY_COMMAND|CONFIG_VALUE_\d+)|PAGER|MANPAGER|SYSTEMD_PAGER|EDITOR|VISUAL|FCEDIT|SSH_ASKPASS|SUDO_ASKPASS|RSYNC_RSH|RSYNC_CONNECT_PROG|CVS_RSH|LESSOPEN|LESSCLOSE|BROWSER)$/;
/** `GIT_CONFIG_PARAMETERS`: `'key'='value'` pairs, as `git -c` passes them on. */
const CONFIG_PARAMETER_VALUE = /'[^']*'='((?:[^']|'\\'')*)'/g;
const SUBSTITUTION = /\$\(((?:[^()]|\([^()]*\))*)\)|`([^`]*)`/g;

/** The shell text a command leaves for later: the handler of `trap`, code assigned by `export` and the like. */
export function deferredCodeOfCommand(program: string | null, argv: readonly ShellWord[]): string[] {
  const words = argv.slice(1).map((word) => word.guess ?? word.value);
  if (program === 'trap') return trapHandler(words);
  if (program === null || !DECLARING.has(program)) return [];
  return words.flatMap((word) => {
    const match = /^([^=\s]+)=(.*)$/s.exec(word);
    return match ? deferredCodeOfAssignment(match[1]!, match[2]!) : [];
  });
}

/** The code an assignment (of a value, or an array's elements) leaves for later: a prompt's, or a command variable's. */
export function deferredCodeOfAssignment(name: string, value: string | readonly string[]): string[] {
  if (typeof value !== 'string') return value.flatMap((element) => deferredCodeOfAssignment(name, element));
  if (PROMPT_CODE.test(name)) return value.trim() ? [value] : [];
  // LESSOPEN's `|` (or `||`) means "run this"; BROWSER is a list of commands.
  if (COMMAND_VARIABLE.test(name)) {
    const codes = name === 'BROWSER' ? value.split(':') : [value];
    return codes.map((code) => code.replace(/^\|{1,2}/, '')).filter((code) => code.trim() !== '');
  }
  if (name === 'GIT_CONFIG_PARAMETERS') return [...value.matchAll(CONFIG_PARAMETER_VALUE)].map((match) => match[1]!.replace(/'\\''/g, "'"));
  if (!PROMPT_STRING.test(name)) return [];
  return [...value.matchAll(SUBSTITUTION)].map((match) => match[1] ?? match[2] ?? '').filter((code) => code.trim() !== '');
}

/** `trap [-lpP] [--] [handler] signal...`: one operand alone, or `-`, resets a signal and runs nothing. */
function trapHandler(words: readonly string[]): string[] {
  let index = 0;
  while (index < words.length && /^-[lpP]+$/.test(words[index]!)) index += 1;
  if (words[index] === '--') index += 1;
  const operands = words.slice(index);
  if (operands.length < 2 || operands[0] === '-' || operands[0]!.trim() === '') return [];
  return [operands[0]!];
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
