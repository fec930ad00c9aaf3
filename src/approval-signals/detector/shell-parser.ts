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
  const tree = parser.parse(text);
  if (!tree) throw new Error('tree-sitter returned no tree');
  try {
    return use(tree.rootNode, tree);
  } finally {
    tree.delete();
  }
}
