// `find ... -exec CMD {} ;|+`: the commands find runs, with `{}` standing for what it finds under
// its start paths (everything below them when no test narrows the search).
import type { ShellWord } from './analysis-types';
import { literalWord } from './shell-words';

const EXEC_ACTIONS = new Set(['-exec', '-execdir', '-ok', '-okdir']);
/** Expression words that do not narrow which files find visits. */
const NON_FILTERS = new Set(['-depth', '-xdev', '-mount', '-follow', '-print', '-print0', '-daystart', '-noleaf', '-ignore_readdir_race', '-delete', '-ls']);
const NUMERIC_OPTIONS = new Set(['-maxdepth', '-mindepth']);

export interface FindExec {
  action: string;
  argv: ShellWord[];
}

/** Start paths: the operands before the first expression word (default `.`). */
export function findStartPaths(args: readonly ShellWord[]): ShellWord[] {
  const starts: ShellWord[] = [];
  for (const word of args) {
    if (['-H', '-L', '-P'].includes(word.value) || /^-O\d$/.test(word.value)) continue;
    if (word.value.startsWith('-') || word.value === '(' || word.value === '!') break;
    starts.push(word);
  }
  return starts.length ? starts : [literalWord('.')];
}

/** True when find visits everything under its start paths (no `-name`, `-type`, ... before the action). */
export function findIsUnfiltered(args: readonly ShellWord[]): boolean {
  const starts = findStartPaths(args).length;
  for (let index = 0; index < args.length; index++) {
    const value = args[index]!.value;
    if (index < starts && !value.startsWith('-')) continue;
    if (EXEC_ACTIONS.has(value)) return true;
    if (NUMERIC_OPTIONS.has(value)) index++;
    else if (!NON_FILTERS.has(value) && !['-H', '-L', '-P'].includes(value)) return false;
  }
  return true;
}

export function findExecs(args: readonly ShellWord[]): FindExec[] {
  const execs: FindExec[] = [];
  const starts = findStartPaths(args);
  const placeholder = findIsUnfiltered(args) ? '/*' : '/{}';
  for (let index = 0; index < args.length; index++) {
    const action = args[index]!.value;
    if (!EXEC_ACTIONS.has(action)) continue;
    const argv: ShellWord[] = [];
    for (index++; index < args.length && ![';', '+'].includes(args[index]!.value); index++) {
      const word = args[index]!;
      if (!word.value.includes('{}')) argv.push(word);
      else for (const start of starts) argv.push(literalWord(word.value.replace(/\{\}/g, `${start.value.replace(/\/+$/, '')}${placeholder}`), word.raw));
    }
    if (argv.length) execs.push({ action, argv });
  }
  return execs;
}
