// A getopt-style argument parser for the programs the rules inspect: bundled short flags
// (`-rf` is `-r -f`), values (`-u root`, `-uroot`, `--user=root`), `--` and operands.
import type { ShellWord } from './analysis-types';
import { wordWithValue } from './shell-words';

export interface OptionSpec {
  /** Short option letters that take a value (`-u USER` or `-uUSER`). */
  shortValued?: string;
  /** Long option names (without `--`) that take a value (`--user USER` or `--user=USER`). */
  longValued?: readonly string[];
  /** Options end at the first operand (wrappers: what follows is the inner command). */
  stopAtOperand?: boolean;
  /** Treat `-<digits>` as an operand (negative numbers, e.g. `kill -9 -1` after the signal). */
  numericOperands?: boolean;
}

export interface ParsedOption {
  /** `-r` or `--recursive` (short bundles are expanded). */
  name: string;
  value?: string;
  /** The option was written inside a bundle of several short options (`-nS`). */
  bundled: boolean;
}

export interface ParsedArgs {
  options: ParsedOption[];
  operands: ShellWord[];
  /** With `stopAtOperand`: index of the first operand in the input (words.length when none). */
  rest: number;
}

export function parseArgs(words: readonly ShellWord[], spec: OptionSpec = {}): ParsedArgs {
  const options: ParsedOption[] = [];
  const operands: ShellWord[] = [];
  const shortValued = spec.shortValued ?? '';
  for (let index = 0; index < words.length; index++) {
    const word = words[index]!;
    const text = word.value;
    const isOption = text.length > 1 && text.startsWith('-') && !(spec.numericOperands && /^-\d+$/.test(text));
    if (text === '--') {
      if (spec.stopAtOperand) return { options, operands, rest: index + 1 };
      operands.push(...words.slice(index + 1));
      break;
    }
    if (!isOption) {
      if (spec.stopAtOperand) return { options, operands, rest: index };
      operands.push(word);
      continue;
    }
    if (text.startsWith('--')) {
      const equals = text.indexOf('=');
      const name = equals === -1 ? text : text.slice(0, equals);
      if (equals !== -1) options.push({ name, value: text.slice(equals + 1), bundled: false });
      else if (spec.longValued?.includes(name.slice(2)) && index + 1 < words.length) {
        options.push({ name, value: words[++index]!.value, bundled: false });
      } else options.push({ name, bundled: false });
      continue;
    }
    const letters = text.slice(1);
    for (let position = 0; position < letters.length; position++) {
      const letter = letters[position]!;
      const bundled = letters.length > 1;
      if (!shortValued.includes(letter)) {
        options.push({ name: `-${letter}`, bundled });
        continue;
      }
      const attached = letters.slice(position + 1);
      if (attached) options.push({ name: `-${letter}`, value: attached, bundled: position > 0 });
      else if (index + 1 < words.length) options.push({ name: `-${letter}`, value: words[++index]!.value, bundled });
      else options.push({ name: `-${letter}`, bundled });
      break;
    }
  }
  return { options, operands, rest: words.length };
}

export function hasOption(parsed: ParsedArgs, ...names: string[]): boolean {
  return parsed.options.some((option) => names.includes(option.name));
}

export function optionValue(parsed: ParsedArgs, ...names: string[]): string | undefined {
  return parsed.options.find((option) => names.includes(option.name) && option.value !== undefined)?.value;
}

/**
 * The word holding an option's value, before any `--`: `NAME VALUE`, `--long=VALUE`, or `-xVALUE`
 * for a one-letter name. Unlike `optionValue`, the value stays a word: a variable in it stays one.
 */
export function optionWord(words: readonly ShellWord[], ...names: string[]): { word: ShellWord; name: string } | undefined {
  for (let index = 0; index < words.length; index++) {
    const text = words[index]!.value;
    if (text === '--') return undefined;
    for (const name of names) {
      if (text === name) {
        if (words[index + 1]) return { word: words[index + 1]!, name };
        continue;
      }
      const joined = name.startsWith('--') ? `${name}=` : name.length === 2 ? name : undefined;
      if (joined && text.length > joined.length && text.startsWith(joined)) return { word: wordWithValue(words[index]!, text.slice(joined.length)), name };
    }
  }
  return undefined;
}

/** True when `written` is an unambiguous-enough abbreviation of `--long` (getopt_long style). */
export function isLongPrefix(written: string, long: string, minimum = 3): boolean {
  return written.length >= minimum && long.startsWith(written);
}

/** Options as canonical tokens for approval keys: `-f`, `-r`, `-n 10`, `--force`, sorted. */
export function canonicalOptions(options: readonly ParsedOption[]): string[] {
  const tokens = options.map((option) => (option.value === undefined ? option.name : `${option.name} ${option.value}`));
  return [...new Set(tokens)].sort();
}
