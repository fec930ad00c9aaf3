// Where a shell or an interpreter gets its program from: a `-c`/`-e` string, a file, or stdin.
import type { ShellWord } from './analysis-types';
import { isInterpreter, isShell } from './program-names';
import { lookupTable } from './lookup-table';

export type ScriptSource =
  /** Code given on the command line (`bash -c STR`, `python -c STR`, `perl -e STR`). */
  | { mode: 'inline'; code: ShellWord[]; flag: string; filter: boolean }
  /** Reads its program from stdin (`bash`, `bash -s`, `python -`, `node`). */
  | { mode: 'stdin' }
  | { mode: 'file'; file: ShellWord }
  /** Runs something else (`python -m pkg`, `node --version`). */
  | { mode: 'other' };

export interface ScriptInvocation {
  source: ScriptSource;
  /** `perl -i`/`ruby -i`: files edited in place. */
  inPlaceFiles?: ShellWord[];
}

export function describeScriptInvocation(program: string, args: readonly ShellWord[]): ScriptInvocation | undefined {
  if (isShell(program)) return { source: shellSource(args) };
  if (!isInterpreter(program)) return undefined;
  if (program === 'perl' || program === 'ruby') return lineEditorInvocation(program, args);
  if (program.startsWith('python') || program.startsWith('pypy')) return { source: pythonSource(args) };
  return { source: genericSource(program, args) };
}

/** `bash [opts] -c STR`, `bash -s`, `bash FILE`; the `-c` string is the first operand. */
function shellSource(args: readonly ShellWord[]): ScriptSource {
  let inline = false;
  let stdin = false;
  for (let index = 0; index < args.length; index++) {
    const text = args[index]!.value;
    if (text === '--' || text === '-') {
      const operand = args[index + 1];
      return resolveShell(inline, stdin || text === '-', operand);
    }
    if (/^--command=/.test(text)) return { mode: 'inline', code: [{ ...args[index]!, value: text.slice(10) }], flag: '--command', filter: false };
    if (['-o', '+o', '-O', '+O', '--rcfile', '--init-file'].includes(text)) index++;
    else if (/^-[a-zA-Z]+$/.test(text)) {
      inline ||= text.includes('c');
      stdin ||= text.includes('s');
    } else if (!/^[-+]/.test(text) || text.length === 1) return resolveShell(inline, stdin, args[index]);
  }
  return resolveShell(inline, stdin, undefined);
}

function resolveShell(inline: boolean, stdin: boolean, operand: ShellWord | undefined): ScriptSource {
  if (inline) return operand ? { mode: 'inline', code: [operand], flag: '-c', filter: false } : { mode: 'other' };
  if (stdin || !operand) return { mode: 'stdin' };
  return { mode: 'file', file: operand };
}

function pythonSource(args: readonly ShellWord[]): ScriptSource {
  for (let index = 0; index < args.length; index++) {
    const text = args[index]!.value;
    if (text === '-') return { mode: 'stdin' };
    if (text === '--') return args[index + 1] ? { mode: 'file', file: args[index + 1]! } : { mode: 'stdin' };
    if (!text.startsWith('-')) return { mode: 'file', file: args[index]! };
    if (text.startsWith('--')) {
      if (['--version', '--help'].includes(text)) return { mode: 'other' };
      continue;
    }
    const letters = text.slice(1);
    for (let position = 0; position < letters.length; position++) {
      const letter = letters[position];
      const attached = letters.slice(position + 1);
      if (letter === 'c') return inlineCode(args, index, attached, '-c', false);
      if (letter === 'm' || letter === 'V' || letter === 'h') return { mode: 'other' };
      if (letter === 'W' || letter === 'X') {
        if (!attached) index++;
        break;
      }
    }
  }
  return { mode: 'stdin' };
}

const INLINE_FLAGS = lookupTable<string[]>({
  node: ['-e', '--eval', '-p', '--print'],
  nodejs: ['-e', '--eval', '-p', '--print'],
  bun: ['-e', '--eval', '-p', '--print'],
  php: ['-r', '-B', '-R', '-F', '-E'],
  lua: ['-e'],
  luajit: ['-e'],
  r: ['-e'],
  rscript: ['-e'],
  julia: ['-e', '--eval', '-E', '--print'],
  elixir: ['-e', '--eval'],
  erl: ['-eval'],
  racket: ['-e', '--eval'],
  guile: ['-c'],
  groovy: ['-e'],
  scala: ['-e'],
  clojure: ['-e', '--eval'],
  clj: ['-e', '--eval'],
  bb: ['-e', '--eval'],
  swift: ['-e'],
  ghc: ['-e'],
  sbcl: ['--eval'],
  clisp: ['-x'],
  ecl: ['-eval'],
  octave: ['--eval'],
  osascript: ['-e'],
});

function genericSource(program: string, args: readonly ShellWord[]): ScriptSource {
  if (program === 'deno') {
    return args[0]?.value === 'eval' && args[1] ? { mode: 'inline', code: [args[1]], flag: 'eval', filter: false } : { mode: 'other' };
  }
  const flags = INLINE_FLAGS[program] ?? [];
  for (let index = 0; index < args.length; index++) {
    const text = args[index]!.value;
    const equals = /^(--[a-z]+)=(.*)$/s.exec(text);
    if (equals && flags.includes(equals[1]!)) return { mode: 'inline', code: [{ ...args[index]!, value: equals[2]! }], flag: equals[1]!, filter: false };
    if (flags.includes(text)) return inlineCode(args, index, '', text, false);
    if (text === '-') return { mode: 'stdin' };
    if (['-r', '--require', '--import', '--input-type', '--loader', '-f'].includes(text)) {
      if (text === '-f' && args[index + 1]) return { mode: 'file', file: args[index + 1]! };
      index++;
    } else if (!text.startsWith('-')) return { mode: 'file', file: args[index]! };
    else if (['-v', '--version', '-h', '--help', '-i', '--interactive', '--check', '-c'].includes(text)) return { mode: 'other' };
  }
  return { mode: 'stdin' };
}

function inlineCode(args: readonly ShellWord[], index: number, attached: string, flag: string, filter: boolean): ScriptSource {
  if (attached) return { mode: 'inline', code: [{ ...args[index]!, value: attached, raw: attached }], flag, filter };
  const code = args[index + 1];
  return code ? { mode: 'inline', code: [code], flag, filter } : { mode: 'other' };
}

/** perl and ruby: `-e` code (repeatable), `-n`/`-p` line filters and `-i[ext]` in-place edits. */
function lineEditorInvocation(program: string, args: readonly ShellWord[]): ScriptInvocation {
  const code: ShellWord[] = [];
  let filter = false;
  let inPlace = false;
  let index = 0;
  for (; index < args.length; index++) {
    const word = args[index]!;
    const text = word.value;
    if (text === '--') {
      index++;
      break;
    }
    if (!text.startsWith('-') || text === '-') break;
    if (text.startsWith('--')) continue;
    const letters = text.slice(1);
    for (let position = 0; position < letters.length; position++) {
      const letter = letters[position]!;
      const attached = letters.slice(position + 1);
      if (letter === 'e' || letter === 'E') {
        const value = attached || args[++index]?.value;
        if (value !== undefined) code.push(attached ? { ...word, value: attached, raw: attached } : args[index]!);
        break;
      }
      if (letter === 'i') {
        inPlace = true;
        break;
      }
      if ('npaF'.includes(letter)) filter = true;
      if ('IMmrCx0lF'.includes(letter)) {
        if (!attached && 'IMrC'.includes(letter)) index++;
        break;
      }
    }
  }
  const operands = args.slice(index);
  let source: ScriptSource;
  if (code.length) source = { mode: 'inline', code, flag: '-e', filter };
  else if (operands[0]) source = { mode: 'file', file: operands[0] };
  else source = { mode: 'stdin' };
  const invocation: ScriptInvocation = { source };
  if (inPlace) invocation.inPlaceFiles = code.length ? operands : operands.slice(1);
  return invocation;
}
