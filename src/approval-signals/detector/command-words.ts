// A simple command's words as bash reads them. tree-sitter-bash's tree differs from bash's reading
// around redirections, and a model can hide what runs in the difference: `rm >/dev/null -rf src`
// parsed as a bare `rm` with three targets. Each difference found by running the real bash on
// random commands (test/unit/approval-signals/bash-agreement.test.ts) is mended here.
import type { ShellWord } from './analysis-types';
import { herestringTail, isDescriptorOfNext, misplacedDescriptor, operatorOf, redirectOperands } from './redirects';
import type { SyntaxNode } from './shell-parser';
import { buildJoinedWord, escapedGap, literalWord, type WordHooks } from './shell-words';

/** A word with its place in the text: nodes, or text the tree left out. */
type PlacedWord = { at: number; end: number } & ({ nodes: SyntaxNode[] } | { literal: string });

export interface CommandParts {
  command: SyntaxNode;
  /** Redirections inside the command node, and those of the statement around it. */
  inner: readonly SyntaxNode[];
  outer: readonly SyntaxNode[];
  statement: SyntaxNode | undefined;
}

/** The command's words (name first) from its own word nodes and what the tree put elsewhere. */
export function commandWords(wordNodes: readonly SyntaxNode[], parts: CommandParts, hooks: WordHooks): ShellWord[] {
  const herestrings = new Set(parts.inner.flatMap(herestringTail).map((node) => node.startIndex));
  const own = wordNodes.filter((node) => !herestrings.has(node.startIndex));
  const placed: PlacedWord[] = [];
  const holder = parts.statement ?? parts.command;
  const found = new Set<number>();
  const candidates = [...own.map(placedNode), ...misreadWords(parts)];
  const dashes = [...droppedDashesBetween(candidates, holder), ...(parts.statement ? droppedDashes(parts.command, parts.outer, parts.statement) : [])];
  // A dash may be found by more than one of these looks: each place counts once.
  for (const word of [...candidates, ...dashes]) if (!found.has(word.at) && found.add(word.at)) placed.push(word);
  placed.sort((left, right) => left.at - right.at);
  return joinTouching(placed).map((word) => ('nodes' in word ? buildJoinedWord(word.nodes, hooks) : literalWord(word.literal)));
}

function placedNode(node: SyntaxNode): PlacedWord {
  return { at: node.startIndex, end: node.endIndex, nodes: [node] };
}

/**
 * Words bash reads as the command's arguments that the tree puts elsewhere:
 * - after a redirection's target, read as more targets (`rm >/dev/null -rf ~`), after `>&-`, and
 *   after a heredoc's start (`rm <<EOF -rf ~`), also in redirections nested in a heredoc's;
 * - a lone `-` between redirections, dropped (`make -f - <<EOF`);
 * - a word written against `<<`, taken into its operator (`cat -f<<EOF`);
 * - a word such as `-12` against a redirection, or any before `&>`, taken for its descriptor;
 * and words against a here-string's end, which are its own (`<<<'rm -rf '\~`), are no arguments.
 */
function misreadWords(parts: CommandParts): PlacedWord[] {
  const words: PlacedWord[] = [];
  for (const redirect of [...parts.inner, ...parts.outer].flatMap(withNestedRedirects)) {
    const descriptor = misplacedDescriptor(redirect);
    if (descriptor) words.push({ at: descriptor.startIndex, end: descriptor.endIndex, literal: descriptor.text });
    words.push(...argumentsInRedirect(redirect).map(placedNode));
    // A `-` against a closing operator (`2<&-- x`) is left out of the redirection's children.
    if (redirect.type === 'file_redirect') words.push(...redirect.children.slice(1).flatMap((child, index) => dashesIn(redirect, redirect.children[index]!.endIndex, child.startIndex)));
    const operator = redirect.type === 'heredoc_redirect' ? operatorOf(redirect) : undefined;
    if (operator && operator.text.length > operator.type.length && operator.text.endsWith(operator.type)) {
      words.push({ at: operator.startIndex, end: operator.endIndex - operator.type.length, literal: operator.text.slice(0, -operator.type.length) });
    }
  }
  return words;
}

/** Each lone `-` the tree left out between two of the command's words (`record - $"t"`, `<in x - {1..2}`). */
function droppedDashesBetween(placed: readonly PlacedWord[], holder: SyntaxNode): PlacedWord[] {
  const sorted = [...placed].sort((left, right) => left.at - right.at);
  return sorted.slice(1).flatMap((word, index) => dashesIn(holder, sorted[index]!.end, word.at));
}

/** The lone `-` words in the text from `from` to `to`. */
function dashesIn(holder: SyntaxNode, from: number, to: number): PlacedWord[] {
  const gap = holder.text.slice(from - holder.startIndex, to - holder.startIndex);
  return [...gap.matchAll(/(?<=^|\s)-(?=\s|$)/g)].map((dash) => ({ at: from + dash.index, end: from + dash.index + 1, literal: '-' }));
}

/** A redirection and those tree-sitter-bash nests in a heredoc's (`cat <<EOF >out x`). */
function withNestedRedirects(redirect: SyntaxNode): SyntaxNode[] {
  if (redirect.type !== 'heredoc_redirect') return [redirect];
  return [redirect, ...redirect.namedChildren.filter((child) => child.type === 'file_redirect' || child.type === 'herestring_redirect').flatMap(withNestedRedirects)];
}

/** A redirection's words that are the command's arguments. */
function argumentsInRedirect(redirect: SyntaxNode): SyntaxNode[] {
  if (redirect.type === 'heredoc_redirect') return redirect.children.filter((_child, index) => redirect.fieldNameForChild(index) === 'argument');
  // A number against the next redirection is its descriptor (`>& x 0>&1`).
  return redirectOperands(redirect).rest.filter((child) => !isDescriptorOfNext(child));
}

/**
 * Each lone `-` in the text between the command and its redirections, up to a heredoc's body (what
 * follows the last redirection belongs to it).
 */
function droppedDashes(command: SyntaxNode, outer: readonly SyntaxNode[], statement: SyntaxNode): PlacedWord[] {
  const spans = [command, ...outer.flatMap((redirect) => (redirect.type === 'heredoc_redirect' ? beforeBody(redirect) : [redirect]))].sort((left, right) => left.startIndex - right.startIndex);
  return spans.slice(0, -1).flatMap((span, index) => dashesIn(statement, span.endIndex, spans[index + 1]!.startIndex));
}

/** A heredoc redirection's parts on the command's line: its operator, start, words and redirections. */
function beforeBody(redirect: SyntaxNode): SyntaxNode[] {
  const body = redirect.children.findIndex((child) => child.type === 'heredoc_body' || child.type === 'heredoc_end');
  return body === -1 ? [redirect] : redirect.children.slice(0, body);
}

/** Words that touch, or that only escaped blanks part, are one word: the tree splits `'/etc/'\shadow` after a quote. */
function joinTouching(placed: readonly PlacedWord[]): PlacedWord[] {
  const joined: PlacedWord[] = [];
  for (const word of placed) {
    const last = joined.at(-1);
    if (last && 'nodes' in last && 'nodes' in word && escapedGap(last.nodes.at(-1)!, word.nodes[0]!) !== undefined) {
      joined[joined.length - 1] = { at: last.at, end: word.end, nodes: [...last.nodes, ...word.nodes] };
    }
    else joined.push(word);
  }
  return joined;
}
