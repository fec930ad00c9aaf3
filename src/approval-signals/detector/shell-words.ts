// Turns a tree-sitter word node into a ShellWord: quote removal, which parts expand at run time,
// globs, brace expansion and `$IFS` splitting. Substitutions inside the word are handed to the
// walker (they run commands too).
import type { ShellWord, Substitution } from './analysis-types';
import { expandBraces, protectSpecials, restoreSpecials } from './brace-expansion';
import { expandParameter } from './parameter-expansion';
import { decodeAnsiC, unescapeDoubleQuoted, unescapeUnquoted } from './quote-removal';
import type { SyntaxNode } from './shell-parser';

export interface WordHooks {
  /** Walk a `$(...)`, backquote or `<(...)` and report the commands inside. */
  substitution(node: SyntaxNode): Substitution;
  /** Walk any other node that may hold substitutions (`${x:-$(cmd)}`, `$((...))`). */
  descend(node: SyntaxNode): void;
  /** The literal value of a variable assigned earlier in the same text, if known. */
  variable(name: string): string | undefined;
  /** `${name:=value}` may assign `name` as the word is expanded. */
  assigned?(name: string): void;
  /** A word (its text) makes more words than are judged (brace expansion past its limit): some go unread. */
  cut?(word: string): void;
  /** The parser's reading of a word (its text) cannot be bash's: parts of it are missing. */
  misread?(word: string): void;
}

interface Segment {
  /** Value as the program would see it when literal; the source text for expansions. */
  text: string;
  /** The text with quoted/escaped glob and brace characters protected. */
  pattern: string;
  quoted: boolean;
  kind: 'text' | 'variable' | 'substitution' | 'other';
  variable?: string;
  substitution?: Substitution;
}

export function buildWord(node: SyntaxNode, hooks: WordHooks): ShellWord {
  const segments: Segment[] = [];
  collectSegments(node, hooks, segments, false);
  return wordFromSegments(node.text, segments, hooks);
}

/**
 * One word the tree splits into nodes (`'/etc/'\shadow`, `"rm -rf"\ ~`, whose escaped blank it
 * leaves out between them): read as bash reads it.
 */
export function buildJoinedWord(nodes: readonly SyntaxNode[], hooks: WordHooks): ShellWord {
  if (nodes.length === 1) return buildWord(nodes[0]!, hooks);
  const segments: Segment[] = [];
  nodes.forEach((node, index) => {
    const gap = index === 0 ? '' : (escapedGap(nodes[index - 1]!, node) ?? '');
    if (gap) pushQuoted(segments, gap);
    collectSegments(node, hooks, segments, false);
  });
  return wordFromSegments(sourceBetween(nodes[0]!, nodes.at(-1)!, true), segments, hooks);
}

/** The text from `left`'s end to `right`'s start (with both, when `inclusive`), read from a node holding both. */
function sourceBetween(left: SyntaxNode, right: SyntaxNode, inclusive = false): string {
  let holder: SyntaxNode | null = left;
  while (holder && holder.endIndex < right.endIndex) holder = holder.parent;
  if (!holder) return '';
  const [from, to] = inclusive ? [left.startIndex, right.endIndex] : [left.endIndex, right.startIndex];
  return holder.text.slice(from - holder.startIndex, to - holder.startIndex);
}

/**
 * What joins two nodes into one word: nothing (they touch), or escaped blanks and line
 * continuations only (`\ `, `\<newline>`), as the text they stand for; undefined when they are two words.
 */
export function escapedGap(left: SyntaxNode, right: SyntaxNode): string | undefined {
  if (left.endIndex === right.startIndex) return '';
  // Escapes come in pairs of characters: an odd gap (the usual one blank) is no escape, and no text is read.
  if ((right.startIndex - left.endIndex) % 2 === 1) return undefined;
  const between = sourceBetween(left, right);
  return /^(?:\\[ \t\n])+$/.test(between) ? between.replace(/\\\n/g, '').replace(/\\(.)/g, '$1') : undefined;
}

/** A word that is known literally (used for synthetic words such as `find` start paths). */
export function literalWord(value: string, raw = value): ShellWord {
  return { raw, value, literal: true, quoted: false, variables: [], substitutions: [], glob: /[*?]/.test(value) };
}

/** The part `value` of a word (an option's value in `--file=X`), keeping what is known of the word. */
export function wordWithValue(word: ShellWord, value: string): ShellWord {
  return { ...word, value, raw: value, ...(word.guess !== undefined ? { guess: value } : {}) };
}

/** The words one word becomes: brace expansion and `$IFS` splitting may make several, or change it. */
export function fieldWords(word: ShellWord): ShellWord[] {
  return word.fields ? word.fields.map((field) => ({ ...literalWord(field, word.raw), literal: word.literal || !/[$`]/.test(field) })) : [word];
}

function collectSegments(node: SyntaxNode, hooks: WordHooks, segments: Segment[], quoted: boolean): void {
  const text = node.text;
  switch (node.type) {
    case 'word':
    case 'number':
    case 'heredoc_content':
    case 'string_content':
    case 'special_character': {
      const value = quoted ? unescapeDoubleQuoted(text) : unescapeUnquoted(text);
      segments.push({ text: restoreSpecials(value), pattern: quoted ? protectSpecials(value) : value, quoted, kind: 'text' });
      return;
    }
    case 'raw_string':
      return pushQuoted(segments, text.slice(1, -1));
    case 'ansi_c_string':
      return pushQuoted(segments, decodeAnsiC(text.slice(2, -1)));
    case 'string':
    case 'translated_string':
      return collectStringSegments(node, hooks, segments);
    case 'concatenation':
      // One word has no blanks between its parts: tree-sitter-bash spans some (`{a}- $"t"`), and drops what lies there.
      if (node.children.some((child, index) => index > 0 && child.startIndex !== node.children[index - 1]!.endIndex)) hooks.misread?.(text);
      for (const child of node.children) collectSegments(child, hooks, segments, quoted);
      return;
    case 'simple_expansion':
    case 'expansion': {
      const variable = node.namedChildren.find((child) => child.type === 'variable_name' || child.type === 'special_variable_name');
      for (const child of node.namedChildren) if (child !== variable) hooks.descend(child);
      const name = variable?.text ?? text.replace(/^\$\{?/, '');
      if (variable && [':=', '='].some((operator) => text.startsWith(`\${${variable.text}${operator}`))) hooks.assigned?.(name);
      segments.push({ text, pattern: protectSpecials(text), quoted, kind: 'variable', variable: name });
      return;
    }
    case 'command_substitution':
    case 'process_substitution':
      segments.push({ text, pattern: protectSpecials(text), quoted, kind: 'substitution', substitution: hooks.substitution(node) });
      return;
    case '$': {
      // `$"..."` is the string translated for the locale, which is the string itself where no
      // catalogue has it: the `$` adds nothing. tree-sitter-bash gives it as a token of its own,
      // which may hold the word's text before it (`-rf$"..."` is `-rf$` then the string).
      const next = node.nextSibling;
      const translates = next?.startIndex === node.endIndex && (next.type === 'string' || next.firstChild?.type === 'string');
      const value = unescapeUnquoted(translates ? text.slice(0, -1) : text);
      if (value) segments.push({ text: value, pattern: value, quoted, kind: 'text' });
      return;
    }
    default:
      hooks.descend(node);
      if (node.type === 'brace_expression') {
        // A sequence (`{1..3}`) the shell expands like any other brace expression.
        segments.push({ text, pattern: quoted ? protectSpecials(text) : text, quoted, kind: 'text' });
        return;
      }
      segments.push({ text, pattern: protectSpecials(text), quoted, kind: 'other' });
  }
}

function pushQuoted(segments: Segment[], value: string): void {
  segments.push({ text: value, pattern: protectSpecials(value), quoted: true, kind: 'text' });
}

/** Double-quoted strings: literal gaps between the children are taken from the source text. */
function collectStringSegments(node: SyntaxNode, hooks: WordHooks, segments: Segment[]): void {
  const source = node.text;
  const base = node.startIndex;
  let cursor = source.indexOf('"') + 1;
  for (const child of node.namedChildren) {
    const start = child.startIndex - base;
    if (start > cursor) pushQuoted(segments, unescapeDoubleQuoted(source.slice(cursor, start)));
    if (child.type === 'string_content') pushQuoted(segments, unescapeDoubleQuoted(child.text));
    else collectSegments(child, hooks, segments, true);
    cursor = child.endIndex - base;
  }
  const end = source.endsWith('"') ? source.length - 1 : source.length;
  if (end > cursor) pushQuoted(segments, unescapeDoubleQuoted(source.slice(cursor, end)));
}

const GLOB = /[*?]|\[[^\]]+\]/;
const FIELD_BREAK = '\uE010';

function wordFromSegments(raw: string, segments: Segment[], hooks: WordHooks): ShellWord {
  const literal = segments.every((segment) => segment.kind === 'text');
  const word: ShellWord = {
    raw,
    value: segments.map((segment) => segment.text).join(''),
    literal,
    quoted: segments.some((segment) => segment.quoted),
    variables: segments.flatMap((segment) => (segment.variable ? [segment.variable] : [])),
    substitutions: segments.flatMap((segment) => (segment.substitution ? [segment.substitution] : [])),
    glob: segments.some((segment) => segment.kind === 'text' && !segment.quoted && GLOB.test(segment.pattern)),
  };
  const fields = runTimeFields(segments, hooks);
  if (fields) word.fields = fields;
  if (!literal) {
    const guess = guessValue(segments, hooks);
    if (guess !== undefined) word.guess = guess;
  }
  return word;
}

/** The value with known variables and echo substitutions filled in, `$IFS` as a space. */
function guessValue(segments: Segment[], hooks: WordHooks): string | undefined {
  let guess = '';
  for (const segment of segments) {
    const known = knownExpansion(segment, hooks);
    if (known === undefined) return undefined;
    guess += known;
  }
  return guess;
}

function knownExpansion(segment: Segment, hooks: WordHooks): string | undefined {
  if (segment.kind === 'text') return segment.text;
  if (segment.kind === 'variable' && segment.variable === 'IFS') return expandParameter(segment.text, 'IFS', ' ');
  if (segment.kind === 'variable' && segment.variable !== undefined) return expandParameter(segment.text, segment.variable, hooks.variable(segment.variable));
  if (segment.kind === 'substitution') return segment.substitution?.output?.replace(/\n+$/, '');
  return undefined;
}

/**
 * Field splitting and brace expansion, when they apply: unquoted `$IFS` and unquoted known
 * expansions split at white space; unquoted braces expand. `undefined` when the word stays one.
 */
function runTimeFields(segments: Segment[], hooks: WordHooks): string[] | undefined {
  let pattern = '';
  let splits = false;
  for (const segment of segments) {
    if (segment.kind === 'text') {
      pattern += segment.pattern;
      continue;
    }
    const known = knownExpansion(segment, hooks);
    if (known === undefined || segment.quoted) {
      pattern += protectSpecials(known ?? segment.text);
      continue;
    }
    const protectedValue = protectSpecials(known);
    splits ||= /\s/.test(known);
    pattern += protectedValue.replace(/\s+/g, FIELD_BREAK);
  }
  const pieces = pattern.split(FIELD_BREAK).filter(Boolean);
  let braces = false;
  const expanded = pieces.flatMap((piece) => {
    const words = expandBraces(piece, undefined, () => hooks.cut?.(restoreSpecials(piece)));
    braces ||= words !== undefined;
    return words ?? [piece];
  });
  // One word can still differ from the text: `/{e..e}tc` is `/etc`.
  if (!splits && !braces) return undefined;
  return expanded.map(restoreSpecials);
}
