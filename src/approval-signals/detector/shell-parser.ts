// Loads the tree-sitter bash grammar (WebAssembly, no native build) once per process and parses
// shell text synchronously afterwards, so classification itself stays a pure, synchronous call.
import { readFile } from 'node:fs/promises';
import { Language, Parser, type Node, type Tree } from 'web-tree-sitter';

export type SyntaxNode = Node;

let loading: Promise<Parser> | undefined;
let parser: Parser | undefined;

/** Idempotent: every caller shares one load; a failed load is retried by the next call. */
export function loadShellParser(): Promise<void> {
  loading ??= createParser().then(
    (created) => {
      parser = created;
      return created;
    },
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading.then(() => undefined);
}

async function createParser(): Promise<Parser> {
  await Parser.init();
  // Bytes rather than a path: loading by path uses a dynamic import, which jest's VM refuses.
  const wasm = new Uint8Array(await readFile(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm')));
  const bash = await Language.load(wasm);
  const created = new Parser();
  created.setLanguage(bash);
  return created;
}

export function isShellParserLoaded(): boolean {
  return parser !== undefined;
}

/**
 * Parses `text` and hands the tree to `use`; the tree lives in WebAssembly memory, so it is
 * always freed afterwards and nodes must not escape `use`.
 */
export function withParsedShell<T>(text: string, use: (root: SyntaxNode, tree: Tree) => T): T {
  if (!parser) throw new Error('The shell parser is not loaded: await loadCommandClassifier() first.');
  let tree = parse(parser, text);
  // Each round takes off the negations found; one may hide another (`! { ! if ...`), so a few rounds.
  for (let round = 0, source = text; round < 8 && source.includes('!'); round++) {
    const negations = negatedCompounds(tree.rootNode).filter((index) => source[index] === '!');
    if (!negations.length) break;
    for (const index of negations) source = `${source.slice(0, index)} ${source.slice(index + 1)}`;
    tree.delete();
    tree = parse(parser, source);
  }
  try {
    return use(tree.rootNode, tree);
  } finally {
    tree.delete();
  }
}

function parse(using: Parser, text: string): Tree {
  const tree = using.parse(text);
  if (!tree) throw new Error('tree-sitter returned no tree');
  return tree;
}

/** Words that open a compound command. */
const COMPOUND_OPENERS = new Set(['{', 'if', 'for', 'while', 'until', 'case', 'select', 'function']);

/**
 * Where `!` negates a compound command (`! { ...; }`, `! if ...`) or another negation (`! ! cmd`):
 * tree-sitter-bash cannot read that and makes plain commands named `{`, `then`, `!` of it, hiding
 * what they run. The `!` only
 * flips the exit status, so the text is read with a blank in its place (same length, same places).
 */
function negatedCompounds(root: SyntaxNode): number[] {
  return root.descendantsOfType('negated_command').flatMap((node) => {
    const negated = node?.firstNamedChild;
    const name = negated?.type === 'command' ? negated.childForFieldName('name') : null;
    if (!node || !name) return [];
    // `! ! cmd` reads as a command named `!`: that `!` is a negation too.
    if (name.text === '!') return [name.startIndex];
    return COMPOUND_OPENERS.has(name.text) ? [node.startIndex] : [];
  });
}
