// What a sed script does besides editing its stream: GNU sed's `e` command (and the `e` flag of
// `s`) runs shell text, and `w`/`W` (and the `w` flag of `s`) write a file. `sed -n '1e rm -rf
// src' f` or `sed -n 'w ~/.bashrc' f` look like text processing; what they run and write is
// judged like the shell's own. Read with GNU sed's grammar, enough to find those commands.
import type { ShellWord } from './analysis-types';
import { wordWithValue } from './shell-words';

export interface SedEffects {
  /** Shell text the script runs; `undefined` where it is the pattern space, known only at run time. */
  runs: (string | undefined)[];
  /** Files the script writes. */
  writes: string[];
}

/** The scripts of a sed command line: `-e`/`--expression` values, else its first operand. */
export function sedScripts(args: readonly ShellWord[]): ShellWord[] {
  const scripts: ShellWord[] = [];
  let fromFile = false;
  let firstOperand: ShellWord | undefined;
  for (let index = 0; index < args.length; index++) {
    const word = args[index]!;
    const text = word.value;
    if (text === '--') {
      firstOperand ??= args[index + 1];
      break;
    }
    if (text === '--sandbox') return []; // sed itself then refuses `e`, `w` and `r`
    const long = /^--(expression|file|line-length)(?:=(.*))?$/s.exec(text);
    if (long) {
      const value = long[2] !== undefined ? wordWithValue(word, long[2]) : args[++index];
      if (long[1] === 'expression' && value) scripts.push(value);
      if (long[1] === 'file') fromFile = true;
      continue;
    }
    if (/^-[a-zA-Z]/.test(text) && !text.startsWith('--')) {
      const letters = text.slice(1);
      for (let position = 0; position < letters.length; position++) {
        const letter = letters[position]!;
        if (letter === 'i') break; // the rest is a backup suffix
        if (letter !== 'e' && letter !== 'f' && letter !== 'l') continue;
        const attached = letters.slice(position + 1);
        const value = attached ? wordWithValue(word, attached) : args[++index];
        if (letter === 'e' && value) scripts.push(value);
        if (letter === 'f') fromFile = true;
        break;
      }
      continue;
    }
    if (!text.startsWith('-')) {
      firstOperand ??= word;
      if (!scripts.length && !fromFile) break;
    }
  }
  if (!scripts.length && !fromFile && firstOperand) scripts.push(firstOperand);
  return scripts;
}

const NO_ARGUMENT = new Set([...'=dDgGhHnNpPxzF']);

/** The commands of `script` that run or write; reading stops at the first thing sed would refuse. */
export function sedEffects(script: string): SedEffects {
  const effects: SedEffects = { runs: [], writes: [] };
  const reader = new ScriptReader(script);
  while (!reader.done()) {
    reader.skip(/[\s;}]/);
    if (reader.done()) break;
    if (reader.peek() === '#') {
      reader.restOfLine();
      continue;
    }
    if (!reader.address()) break;
    if (reader.peek() === ',' && (reader.take(), !reader.address(true))) break;
    reader.skip(/[\s!]/);
    const command = reader.take();
    if (command === '{') continue;
    if (command === 'e') effects.runs.push(reader.restOfLine().trim() || undefined);
    else if (command === 'w' || command === 'W') effects.writes.push(reader.restOfLine().trim());
    else if (command === 'r' || command === 'R' || command === 'a' || command === 'i' || command === 'c') reader.textArgument();
    else if (command === ':' || command === 'b' || command === 't' || command === 'T' || command === 'v') reader.label();
    else if (command === 'q' || command === 'Q' || command === 'l' || command === 'L') reader.skip(/[\s\d]/);
    else if (command === 'y') {
      const delimiter = reader.take();
      if (!reader.delimited(delimiter) || !reader.delimited(delimiter)) break;
    } else if (command === 's') {
      if (!substitution(reader, effects)) break;
    } else if (!NO_ARGUMENT.has(command)) break;
  }
  return effects;
}

/** `s/regex/replacement/flags`: the `e` flag runs the result, the `w` flag writes to a file. */
function substitution(reader: ScriptReader, effects: SedEffects): boolean {
  const delimiter = reader.take();
  if (!delimiter || delimiter === '\n' || delimiter === '\\') return false;
  const pattern = reader.delimited(delimiter);
  const replacement = pattern === undefined ? undefined : reader.delimited(delimiter);
  if (replacement === undefined) return false;
  for (;;) {
    const flag = reader.peek();
    if (flag === 'e') {
      reader.take();
      // What runs is the pattern space after the replacement: known only when nothing of the input stays.
      const known = pattern === '^.*$' || pattern === '.*';
      effects.runs.push(known && !/(^|[^\\])(&|\\\d)/.test(replacement) ? replacement.replace(/\\(.)/g, '$1') : undefined);
    } else if (flag === 'w') {
      reader.take();
      effects.writes.push(reader.restOfLine().trim());
      return true;
    } else if (flag !== undefined && /[gpiImM\d]/.test(flag)) reader.take();
    else return true;
  }
}

class ScriptReader {
  private position = 0;

  constructor(private readonly text: string) {}

  done(): boolean {
    return this.position >= this.text.length;
  }

  peek(): string | undefined {
    return this.text[this.position];
  }

  take(): string {
    return this.text[this.position++] ?? '';
  }

  skip(characters: RegExp): void {
    while (!this.done() && characters.test(this.text[this.position]!)) this.position++;
  }

  restOfLine(): string {
    const end = this.text.indexOf('\n', this.position);
    const line = this.text.slice(this.position, end === -1 ? undefined : end);
    this.position = end === -1 ? this.text.length : end + 1;
    return line;
  }

  /** `a text`, `a\` + lines: up to a line that does not end in a backslash. */
  textArgument(): void {
    while (!this.done() && this.restOfLine().endsWith('\\'));
  }

  label(): void {
    this.skip(/[ \t]/);
    while (!this.done() && !/[;\n]/.test(this.text[this.position]!)) this.position++;
  }

  /** An optional address (`3`, `$`, `/re/I`, `\%re%`, `0~4`, `+2`); false where it does not parse. */
  address(second = false): boolean {
    this.skip(/[ \t]/);
    const character = this.peek();
    if (character === '/' || character === '\\') {
      const delimiter = character === '\\' ? (this.take(), this.take()) : this.take();
      if (this.delimited(delimiter) === undefined) return false;
      this.skip(/[IM]/);
    } else if (character === '$') this.take();
    else if (character !== undefined && (/\d/.test(character) || (second && /[+~]/.test(character)))) {
      this.take();
      this.skip(/[\d~]/);
    }
    this.skip(/[ \t]/);
    return true;
  }

  /** Text up to an unescaped `delimiter` (which it consumes), or undefined if there is none. */
  delimited(delimiter: string): string | undefined {
    let text = '';
    while (!this.done()) {
      const character = this.take();
      if (character === delimiter) return text;
      if (character === '\\' && !this.done()) text += character + this.take();
      else text += character;
    }
    return undefined;
  }
}
