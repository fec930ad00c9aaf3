// Redirections: files written (`>`, `>>`, `&>`, `>|`), stdin sources (`<`, `<(...)`, heredocs,
// here-strings), the commands that continue after a heredoc start (`cat <<EOF | sh`), and the
// descriptors open on a network connection (`bash -i >& /dev/tcp/h/p 0>&1`: stdin is the connection).
import type { ShellWord, StdinFeed } from './analysis-types';
import type { SyntaxNode } from './shell-parser';
import { buildJoinedWord, escapedGap, fieldWords } from './shell-words';
import type { Scope } from './walk-scope';
import type { WalkerApi } from './walker-api';

const WRITE_OPERATORS = new Set(['>', '>>', '>|', '&>', '&>>', '<>']);

/** Bash's own network paths. */
const NETWORK_PATH = /^\/dev\/(?:tcp|udp)\/./;
/** What a command without redirections and without inherited connections gets (never changed). */
const NO_CONNECTIONS = new Map<string, string>();

export interface RedirectEffects {
  stdin?: StdinFeed;
  /** Pipelines or lists written after a heredoc start, to run after the command. */
  continuations: SyntaxNode[];
  /** Descriptors open on a network connection after these redirections (kept by a bare `exec`). */
  connections: ReadonlyMap<string, string>;
}

export function applyRedirects(api: WalkerApi, redirects: readonly SyntaxNode[], scope: Scope, commandText: string): RedirectEffects {
  if (!redirects.length) return { continuations: [], connections: scope.connections ?? NO_CONNECTIONS, ...stdinOf(scope.connections) };
  const connections = new Map(scope.connections);
  const effects: RedirectEffects = { continuations: [], connections };
  for (const redirect of redirects) {
    if (redirect.type === 'file_redirect') applyFileRedirect(api, redirect, scope, commandText, effects, connections);
    else if (redirect.type === 'herestring_redirect') {
      const target = redirectOperands(redirect).target;
      if (!target.length) continue;
      const word = buildJoinedWord(target, api.wordHooks(scope));
      const known = word.literal || word.guess !== undefined;
      effects.stdin = { kind: 'herestring', text: `${word.guess ?? word.value}\n`, literal: known, word };
      connections.delete('0');
    } else if (redirect.type === 'heredoc_redirect') applyHeredoc(api, redirect, scope, commandText, effects, connections);
  }
  return { ...effects, ...stdinOf(connections) };
}

/** Input read from a network connection when descriptor 0 leads to one. */
function stdinOf(connections: ReadonlyMap<string, string> | undefined): { stdin?: StdinFeed } {
  const connection = connections?.get('0');
  return connection === undefined ? {} : { stdin: { kind: 'network', address: connection } };
}

/**
 * tree-sitter-bash reads the `0` of `sh 0<x` as an argument, and that of `>& x 0>&1` as a second
 * target of the redirection before: digits (or `{name}`) written right against a redirection are
 * its descriptor.
 */
export function isDescriptorOfNext(node: SyntaxNode): boolean {
  // `{name}>file` opens a descriptor and keeps its number in `name`: no argument either.
  if (!(node.type === 'number' && /^\d+$/.test(node.text)) && !/^\{[A-Za-z_]\w*\}$/.test(node.text)) return false;
  // The redirection may follow the command's list or pipeline (`a | b 0<in`): look past their ends.
  let next = node.nextSibling;
  for (let up = node.parent; !next && up; up = up.parent) next = up.nextSibling;
  if (!next || next.startIndex !== node.endIndex) return false;
  // `&>` and `&>>` take no descriptor: `2&>x` is the word `2`, then the redirection.
  if (operatorOf(next)?.type.startsWith('&>')) return false;
  return isSplitReadWrite(next) || (next.type.endsWith('_redirect') && !next.childForFieldName('descriptor'));
}

/** The `<` of `<>` that tree-sitter-bash leaves as an error before a `>` redirection (`sh <> x`, `0<>x`). */
function isSplitReadWrite(node: SyntaxNode): boolean {
  const next = node.nextSibling;
  return node.type === 'ERROR' && node.text === '<' && next?.type === 'file_redirect' && next.startIndex === node.endIndex;
}

/** A redirection's operator token (`>`, `<&-`, `<<`, ...): its first unnamed child. */
export function operatorOf(redirect: SyntaxNode): SyntaxNode | undefined {
  return redirect.children.find((child) => !child.isNamed);
}

/**
 * The descriptor tree-sitter-bash reads that bash reads as a word of the command: anything but
 * digits or `{name}` (`-12>x`, `-a1>x`), and anything before `&>`, which takes none (`2&>x`).
 */
export function misplacedDescriptor(redirect: SyntaxNode): SyntaxNode | undefined {
  const written = redirect.childForFieldName('descriptor');
  if (!written) return undefined;
  const operator = operatorOf(redirect)?.type ?? '';
  return /^(?:\d+|\{[A-Za-z_]\w*\})$/.test(written.text) && !operator.startsWith('&>') ? undefined : written;
}

/**
 * A file or here-string redirection's words after its descriptor: its target (nodes that touch
 * make one word: `>'/etc/'\passwd`), then the rest, which tree-sitter-bash reads as more targets
 * but bash as the command's arguments (`rm >/dev/null -rf ~`). `>&-` takes no target.
 */
export function redirectOperands(redirect: SyntaxNode): { target: SyntaxNode[]; rest: SyntaxNode[] } {
  const descriptor = redirect.childForFieldName('descriptor');
  // Words the parser could not place sit in an ERROR node (`2<&-- x`): bash reads them as words too.
  const operands = redirect.namedChildren
    .flatMap((child) => (child.type === 'ERROR' ? child.namedChildren : [child]))
    .filter((child) => !(child.type === 'file_descriptor' && child.startIndex === descriptor?.startIndex));
  const closes = /^[<>]&-$/.test(operatorOf(redirect)?.type ?? '');
  if (closes || !operands.length) return { target: [], rest: operands };
  let end = 1;
  while (end < operands.length && escapedGap(operands[end - 1]!, operands[end]!) !== undefined) end++;
  if (redirect.type === 'herestring_redirect' && end === operands.length) return { target: [...operands, ...herestringTail(redirect)], rest: [] };
  return { target: operands.slice(0, end), rest: operands.slice(end) };
}

/** Words against a here-string's end that tree-sitter-bash makes the command's (`<<<'rm -rf '\~`): its own. */
export function herestringTail(redirect: SyntaxNode): SyntaxNode[] {
  if (redirect.type !== 'herestring_redirect') return [];
  const tail: SyntaxNode[] = [];
  for (let sibling = redirect.nextSibling; sibling && !sibling.type.endsWith('_redirect') && escapedGap(tail.at(-1) ?? redirect, sibling) !== undefined; sibling = sibling.nextSibling) {
    tail.push(sibling);
  }
  return tail;
}

/** The operator and descriptor as bash reads them, where tree-sitter-bash splits `<>` or misplaces a `0`. */
function readRedirect(redirect: SyntaxNode): { operator: string; descriptor?: string } {
  let operator = operatorOf(redirect)?.type ?? '>';
  // `3<>x` parses as `<`, an error `>`, then the target.
  if (operator === '<' && redirect.children.some((child) => child.type === 'ERROR' && child.text === '>')) operator = '<>';
  let start = redirect;
  const split = redirect.previousSibling;
  if (operator === '>' && split && isSplitReadWrite(split)) {
    operator = '<>';
    start = split;
  }
  const written = redirect.childForFieldName('descriptor');
  if (written) return misplacedDescriptor(redirect) ? { operator } : { operator, descriptor: written.text };
  let before = start.previousSibling;
  while (before && before.childCount > 0) before = before.lastChild;
  return before && isDescriptorOfNext(before) ? { operator, descriptor: before.text } : { operator };
}

/** Which descriptors now lead to a network connection: `< /dev/tcp/..`, `>& /dev/tcp/..`, `0<&3`, `0>&1`. */
function followConnections(connections: Map<string, string>, operator: string, written: string | undefined, destination: string): void {
  const duplicate = /^(\d+)-?$/.exec(destination);
  if ((operator === '>&' || operator === '<&') && (duplicate || destination === '-')) {
    const to = written ?? (operator === '<&' ? '0' : '1');
    const from = duplicate ? connections.get(duplicate[1]!) : undefined;
    if (from === undefined) connections.delete(to);
    else connections.set(to, from);
    return;
  }
  const reads = operator === '<' || operator === '<>';
  const both = written === undefined && (operator === '>&' || operator.startsWith('&>'));
  const descriptors = written !== undefined ? [written] : reads ? ['0'] : both ? ['1', '2'] : ['1'];
  for (const descriptor of descriptors) {
    if (NETWORK_PATH.test(destination)) connections.set(descriptor, destination);
    else connections.delete(descriptor);
  }
}

function applyFileRedirect(api: WalkerApi, redirect: SyntaxNode, scope: Scope, commandText: string, effects: RedirectEffects, connections: Map<string, string>): void {
  const { operator, descriptor } = readRedirect(redirect);
  const target = redirectOperands(redirect).target;
  const destinationNode = target[0];
  if (!destinationNode || destinationNode.type === 'file_descriptor') return;
  const destination = buildJoinedWord(target, api.wordHooks(scope));
  followConnections(connections, operator, descriptor, destination.guess ?? destination.value);
  // Bash expands a target's braces too: `> /{e..e}tc/hosts` writes /etc/hosts (more than one word
  // is an error, but each is judged).
  if (operator === '<' || operator === '<>') {
    effects.stdin = destinationNode.type === 'process_substitution' ? { kind: 'process-substitution', word: destination } : { kind: 'file', word: destination };
    if (destinationNode.type !== 'process_substitution') {
      for (const target of fieldWords(destination)) for (const cwd of possibleCwds(scope)) api.analysis.reads.push({ target, cwd, command: commandText, ...guessMark(scope) });
    }
    if (operator === '<') return;
  }
  const duplicatesDescriptor = (operator === '>&' || operator === '<&') && /^(?:\d+-?|-)$/.test(destination.value);
  if (!WRITE_OPERATORS.has(operator) && !(operator === '>&' && !duplicatesDescriptor)) return;
  for (const target of fieldWords(destination)) recordWrite(api, target, scope, commandText, operator);
}

/** `via`: `output` for a file a program is told to write by other means (a variable: `HISTFILE=x`). */
export function recordWrite(api: WalkerApi, target: ShellWord, scope: Scope, commandText: string, operator: string, via: 'redirect' | 'output' = 'redirect'): void {
  for (const cwd of possibleCwds(scope)) api.analysis.writes.push({ via, target, cwd, command: commandText, program: operator, wrappers: scope.wrappers, ...guessMark(scope) });
}

function guessMark(scope: Scope): { guessedRunner?: string } {
  return scope.guessedRunner === undefined ? {} : { guessedRunner: scope.guessedRunner };
}

/** The folder the shell is in, and those a failed `cd` may have left it in. */
function possibleCwds(scope: Scope): (string | null)[] {
  return [scope.cwd, ...(scope.cwdFallbacks ?? [])];
}

function applyHeredoc(api: WalkerApi, redirect: SyntaxNode, scope: Scope, commandText: string, effects: RedirectEffects, connections: Map<string, string>): void {
  const start = redirect.children.find((child) => child.type === 'heredoc_start')?.text ?? '';
  const body = redirect.children.find((child) => child.type === 'heredoc_body');
  const quoted = /['"\\]/.test(start);
  // In an unquoted heredoc, `$(...)` and backquotes run in the outer shell.
  if (body && !quoted) for (const child of body.namedChildren) api.visit(child, scope);
  let text = body?.text ?? '';
  if (redirect.children.some((child) => child.type === '<<-')) text = text.replace(/^\t+/gm, '');
  const literal = quoted || !body?.namedChildren.some((child) => child.type !== 'heredoc_content');
  effects.stdin = { kind: 'heredoc', text, literal };
  connections.delete('0');
  for (const child of redirect.namedChildren) {
    if (child.type === 'file_redirect') applyFileRedirect(api, child, scope, commandText, effects, connections);
    else if (child.type === 'herestring_redirect' || child.type === 'heredoc_redirect') continue;
    else if (!['heredoc_start', 'heredoc_body', 'heredoc_end'].includes(child.type)) effects.continuations.push(child);
  }
}
