// Options by which a program that otherwise only reads runs another one: `rg --pre CMD` runs
// `CMD FILE` for every file it searches (`rg --pre rm x .` deletes them), `sort
// --compress-program`, `split --filter`, a pager given to `man` or `bat`. What they run is judged
// as a command of its own, like `find -exec`'s.
import type { ShellWord } from './analysis-types';
import { literalWord } from './shell-words';

/** A program named by an option (run with `operands`), or shell text an option hands to a shell. */
export type RunByOption = { kind: 'program'; argv: ShellWord[]; option: string } | { kind: 'shell'; text: ShellWord; option: string };

interface RunningOption {
  /** Spellings: `--long` (also `--long=VALUE`), `-x` (also `-xVALUE`). */
  names: readonly string[];
  /** The value is a program (run with the files searched) or shell text. */
  value: 'program' | 'shell';
  /** The program gets each file searched as its argument (ripgrep's preprocessor). */
  perFile?: boolean;
}

const RUNNING_OPTIONS: Readonly<Record<string, readonly RunningOption[]>> = {
  rg: [
    { names: ['--pre'], value: 'program', perFile: true },
    { names: ['--hostname-bin'], value: 'program' },
  ],
  sort: [{ names: ['--compress-program'], value: 'program' }],
  split: [{ names: ['--filter'], value: 'shell' }],
  man: [{ names: ['-P', '--pager', '--html'], value: 'shell' }],
  bat: [{ names: ['--pager'], value: 'shell' }],
  batcat: [{ names: ['--pager'], value: 'shell' }],
  ag: [{ names: ['--pager'], value: 'shell' }],
  ack: [{ names: ['--pager'], value: 'shell' }],
};

/** What `program args` runs through its options; `operands` stands for the files it works on. */
export function runByOptions(program: string | null, args: readonly ShellWord[]): RunByOption[] {
  const options = program === null ? undefined : RUNNING_OPTIONS[program];
  if (!options) return [];
  const found: RunByOption[] = [];
  const values = new Set<number>();
  const perFile: { word: ShellWord; option: string }[] = [];
  for (let index = 0; index < args.length; index++) {
    const word = args[index]!;
    if (word.value === '--') break;
    for (const option of options) {
      const value = valueOf(word, args[index + 1], option.names);
      if (!value) continue;
      if (value.next) values.add(++index);
      if (option.value === 'shell') found.push({ kind: 'shell', text: value.word, option: value.name });
      else if (option.perFile) perFile.push({ word: value.word, option: value.name });
      else found.push({ kind: 'program', argv: [value.word], option: value.name });
    }
  }
  const files = searchedFiles(args.filter((word, index) => !values.has(index) && !word.value.startsWith('-')));
  for (const { word, option } of perFile) found.push({ kind: 'program', argv: [word, ...files], option });
  return found;
}

/** The option's value in `word` (`--pre=CMD`, `-PCMD`) or in the word after it (`--pre CMD`). */
function valueOf(word: ShellWord, next: ShellWord | undefined, names: readonly string[]): { word: ShellWord; next: boolean; name: string } | undefined {
  for (const name of names) {
    if (word.value === name) return next ? { word: next, next: true, name } : undefined;
    const joined = name.startsWith('--') ? `${name}=` : name;
    if (word.value.startsWith(joined) && word.value.length > joined.length) {
      const value = word.value.slice(joined.length);
      return { word: word.literal ? literalWord(value) : { ...word, value, raw: value }, next: false, name };
    }
  }
  return undefined;
}

/** The files a per-file program is run on: everything under the operands after the pattern, or `.`. */
function searchedFiles(words: readonly ShellWord[]): ShellWord[] {
  const operands = words.slice(1);
  return (operands.length ? operands : [literalWord('.')]).map((operand) => ({ ...operand, value: `${operand.value.replace(/\/+$/, '')}/*`, raw: `${operand.raw}/*`, glob: true }));
}
