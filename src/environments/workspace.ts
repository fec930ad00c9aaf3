// File access for tools, rooted at the session's working directory. Backends implement it so
// file tools work wherever the terminal runs.

export interface FileStat {
  type: 'file' | 'directory' | 'other';
  size: number;
  modifiedMs: number;
}

export interface WalkOptions {
  /** Stop after this many files. */
  maxFiles: number;
  /** Directory names never descended into (.git, node_modules, ...). */
  skipDirectories: ReadonlySet<string>;
}

export interface Workspace {
  /** Absolute working directory that relative paths resolve against. */
  readonly cwd: string;
  /** Absolute form of `path` (expanding `~` and resolving against `cwd`). */
  resolve(path: string): string;
  readFile(path: string): Promise<Buffer>;
  /** Writes the whole file, creating parent directories. */
  writeFile(path: string, content: string): Promise<void>;
  stat(path: string): Promise<FileStat | null>;
  /**
   * Where `path` really leads on this backend, symbolic links followed (absolute). A path that
   * does not exist yet resolves through its deepest existing ancestor, a dangling link through its
   * target: what the approval gate judges before a file tool touches the path.
   */
  realpath(path: string): Promise<string>;
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
