// File access for tools, rooted at the session's working directory. Backends implement it so
// file tools work wherever the terminal runs.

export interface FileStat {
  type: 'file' | 'directory' | 'other';
  size: number;
  modifiedMs: number;
}

/**
 * The most directory entries one walk reads (a backend that lists folders itself): a folder of
 * millions of names the agent made costs the worker no more than this, in time and memory.
 */
export const MAX_WALK_ENTRIES = 100_000;

/**
 * The most bytes of names one walk brings into the worker: names may be long (a path up to 4 KiB
 * each), so an entry count alone would still let a crafted tree send hundreds of MiB.
 */
export const MAX_WALK_BYTES = 16 * 1024 * 1024;

export interface WalkOptions {
  /** Stop after this many files. */
  maxFiles: number;
  /** Stop after reading this many directory entries in all (default MAX_WALK_ENTRIES); a folder past it is cut short. */
  maxEntries?: number;
  /** Stop after this many bytes of names in all (default MAX_WALK_BYTES). */
  maxBytes?: number;
  /** Directory names never descended into (.git, node_modules, ...). */
  skipDirectories: ReadonlySet<string>;
  /** Told, once, why the walk stopped before the end of the tree (entry or byte bound), so the model can hear its results are partial. */
  onCutShort?: (reason: string) => void;
}

/** The reason a walk gives `onCutShort`, worded the same on every backend. */
export function walkCutShort(bound: 'entries' | 'bytes', limit: number): string {
  const amount = bound === 'entries' ? `${limit.toLocaleString('en-US')} directory entries` : `${limit.toLocaleString('en-US')} bytes of file names`;
  return `the listing stopped after ${amount}, the most one walk reads`;
}

/** `options.onCutShort`, told at most once however many folders a walk finds past its bound. */
export function cutShortReporter(options: WalkOptions): (bound: 'entries' | 'bytes', limit: number) => void {
  let told = false;
  return (bound, limit) => {
    if (!told) options.onCutShort?.(walkCutShort(bound, limit));
    told = true;
  };
}

/**
 * The most a file tool reads of one file into the worker's memory: a larger file is refused
 * (EFBIG) on every backend, so a sparse file or `/dev/zero` the agent points a tool at cannot
 * exhaust the worker that serves every session.
 */
export const MAX_READ_BYTES = 64 * 1024 * 1024;

/** The error a read past `maxBytes` ends with, the same on every backend. */
export function fileTooLarge(target: string, maxBytes: number): NodeJS.ErrnoException {
  return Object.assign(new Error(`EFBIG: ${target} is larger than ${maxBytes} bytes, the most a file tool reads`), { code: 'EFBIG', path: target });
}

export interface Workspace {
  /** Absolute working directory that relative paths resolve against. */
  readonly cwd: string;
  /** Absolute form of `path` (expanding `~` and resolving against `cwd`). */
  resolve(path: string): string;
  /** A regular file's bytes, at most `maxBytes` (default MAX_READ_BYTES): a larger one fails with EFBIG. */
  readFile(path: string, maxBytes?: number): Promise<Buffer>;
  /** Writes the whole file, creating parent directories. */
  writeFile(path: string, content: string): Promise<void>;
  stat(path: string): Promise<FileStat | null>;
  /**
   * Where `path` really leads on this backend, symbolic links followed (absolute). A path that
   * does not exist yet resolves through its deepest existing ancestor, a dangling link through its
   * target: what the approval gate judges before a file tool touches the path.
   */
  realpath(path: string): Promise<string>;
  /**
   * `realpath` of each path at once (undefined where one cannot be resolved), for backends where
   * each look is a round trip of its own (an exec): one round trip for all.
   */
  realpaths?(paths: readonly string[]): Promise<(string | undefined)[]>;
  /** Files under `root` (absolute paths), depth first, sorted by name within a directory. */
  walk(root: string, options: WalkOptions): AsyncIterable<string>;
  /**
   * This workspace for one tool call whose paths the approval gate judged (`checked`, real
   * paths): where a backend can tell what a file it opened really is, it refuses one that is
   * neither a checked path nor inside one (a link swapped after the check).
   */
  pinned?(checked: readonly string[]): Workspace;
  /**
   * A file a walk found, read only if it is still a plain file of at most `maxBytes` whose real
   * path lies within `within` (a real path): never through a link swapped in since the walk saw
   * it. Null otherwise. Backends whose files are not the worker's may leave it out.
   */
  readWithin?(path: string, within: string, maxBytes: number): Promise<{ content: Buffer; realPath: string } | null>;
}

/** `realpath` of each path, in one round trip where the backend can. */
export function realPathsOn(workspace: Workspace, paths: readonly string[]): Promise<(string | undefined)[]> {
  if (workspace.realpaths) return workspace.realpaths(paths);
  return Promise.all(paths.map((target) => workspace.realpath(target).catch(() => undefined)));
}
