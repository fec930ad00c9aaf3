// Which commands may change shell variables other than by a plain `name=value`: after one, a value
// the walker holds may be stale, and a stale value misjudges a word (`x=build; read x <<< src;
// rm -rf $x` deletes src). Programs outside the shell cannot change its variables; these can.
import type { ExecutedCommand } from './analysis-types';

/** Builtins that assign, unset or declare variables (or run code that may). */
const ASSIGNING_BUILTINS = new Set([
  'read', 'mapfile', 'readarray', 'getopts', 'let', 'declare', 'typeset', 'local', 'export', 'readonly', 'unset', 'eval', 'source', '.',
  'enable', 'builtin', 'command', 'coproc', 'trap',
]);

/** Whether running `command` may change variables; `functions` are those the text defines. */
export function mayChangeVariables(command: ExecutedCommand, functions: ReadonlySet<string>): boolean {
  // A wrapper that is itself a builtin (`command read x`, `coproc x ...`) counts too.
  if (command.layers.some((layer) => layer.program !== null && ASSIGNING_BUILTINS.has(layer.program))) return true;
  const program = command.program;
  if (program === null || command.guessed) return true; // a name built at run time could be `read`
  if (ASSIGNING_BUILTINS.has(program) || functions.has(program)) return true;
  const options = command.argv.slice(1).map((word) => word.value);
  if (program === 'printf') return options.some((option) => option.startsWith('-v'));
  if (program === 'wait') return options.some((option) => /^-[a-z]*p/.test(option));
  return false;
}

/** `((x = 1))`, `$((x++))`: arithmetic that assigns. */
export function arithmeticAssigns(text: string): boolean {
  return /\+\+|--|(?<![=!<>])=(?!=)/.test(text);
}
