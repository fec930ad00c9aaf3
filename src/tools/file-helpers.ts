// Helpers shared by the file tools (read_file, write_file, patch, search_files). This module
// declares no tool itself, so discovery never loads it as one.
import path from 'node:path';
import { RE2JS } from 're2js';
import { MAX_READ_BYTES, type Workspace } from '../environments/workspace';

/** Directories never worth searching or listing: VCS metadata, dependencies, build output, caches. */
export const SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set([
  '.git',
  'node_modules',
  '.hg',
  '.svn',
  '__pycache__',
  '.venv',
  'dist',
  '.next',
  '.cache',
]);

const BINARY_SNIFF_BYTES = 8192;

/** A NUL byte in the first 8 KB is how git and grep tell binary from text too. */
export function isBinary(content: Buffer): boolean {
  return content.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}

/** Lines of a text without their terminators; a final newline does not start an extra empty line. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

const NEWLINE = 0x0a;

/**
 * Lines `first` to `first + count - 1` (1-based) of `content`, split as `splitLines` splits, and
 * how many lines it has. Only the page is decoded: splitting a whole file of 60 MB of newlines
 * made 63 million strings and held the worker's main thread 2.3 s for each read_file of it.
 */
export function linePage(content: Buffer, first: number, count: number): { lines: string[]; total: number } {
  // The page's bounds, then a plain count of the newlines after it.
  let newlines = 0;
  let start = first === 1 ? 0 : -1;
  let end = -1;
  let index = 0;
  for (; index < content.length && end === -1; index += 1) {
    if (content[index] !== NEWLINE) continue;
    newlines += 1;
    if (newlines === first - 1) start = index + 1;
    if (newlines === first - 1 + count) end = index + 1;
  }
  for (; index < content.length; index += 1) if (content[index] === NEWLINE) newlines += 1;
  const total = content.length === 0 ? 0 : newlines + (content[content.length - 1] === NEWLINE ? 0 : 1);
  if (start === -1 || start >= content.length) return { lines: [], total };
  return { lines: splitLines(content.toString('utf8', start, end === -1 ? content.length : end)), total };
}

/** `target` relative to the workspace cwd when it lies inside it, else absolute: short for the model. */
export function displayPath(workspace: Workspace, target: string): string {
  const relative = path.relative(workspace.cwd, target);
  if (relative === '') return '.';
  if (relative.startsWith('..') || path.isAbsolute(relative)) return target;
  return relative.split(path.sep).join('/');
}

/** A short reason for a filesystem error, without the temporary-file names Node puts in messages. */
export function describeFileError(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  const reasons: Record<string, string> = {
    EACCES: 'permission denied',
    EPERM: 'operation not permitted',
    EISDIR: 'it is a directory',
    ENOTDIR: 'a parent of the path is not a directory',
    ENOENT: 'no such file or directory',
    ENOSPC: 'no space left on device',
    EROFS: 'read-only file system',
    EEXIST: 'a file is in the way of a parent directory',
    EINVAL: 'not a regular file (a device, FIFO or socket)',
    ETIMEDOUT: 'the backend did not finish the file operation in time',
    EFBIG: `larger than ${MAX_READ_BYTES / (1024 * 1024)} MiB, the most a file tool reads; look at parts of it with the terminal (head, tail, grep)`,
  };
  if (typeof code === 'string' && reasons[code]) return `${reasons[code]} (${code})`;
  return error instanceof Error ? error.message : String(error);
}

/** Longer globs are refused: matching costs the glob's length times the name's, on the worker's thread. */
export const MAX_GLOB_CHARS = 256;

export interface GlobMatcher {
  test(subject: string): boolean;
}

/**
 * A shell-style glob as a test of names: `*` and `?` stay within one path segment, `**` crosses
 * segments, `[...]` is a character class (`[!...]` negated) and `{a,b}` an alternation. On a
 * linear-time engine (RE2): a backtracking one took 14 s for `*a*a*a*a*b` against a name of 200
 * a's, which a session can create, and hours with two more stars, stalling every session's calls.
 */
export function globMatcher(glob: string): GlobMatcher {
  if (glob.length > MAX_GLOB_CHARS) throw new Error(`the glob is longer than ${MAX_GLOB_CHARS} characters`);
  let source = '';
  let braceDepth = 0;
  for (let index = 0; index < glob.length; index += 1) {
    const char = glob[index]!;
    if (char === '*') {
      if (glob[index + 1] === '*') {
        const slashFollows = glob[index + 2] === '/';
        source += slashFollows ? '(?:.*/)?' : '.*';
        index += slashFollows ? 2 : 1;
      } else {
        source += '[^/]*';
      }
    } else if (char === '?') {
      source += '[^/]';
    } else if (char === '[') {
      const close = glob.indexOf(']', index + 2);
      if (close === -1) {
        source += '\\[';
        continue;
      }
      let body = glob.slice(index + 1, close);
      const negated = body.startsWith('!') || body.startsWith('^');
      if (negated) body = body.slice(1);
      source += `[${negated ? '^' : ''}${body.replace(/[\\\]]/g, '\\$&')}]`;
      index = close;
    } else if (char === '{' && glob.indexOf('}', index) !== -1) {
      braceDepth += 1;
      source += '(?:';
    } else if (char === '}' && braceDepth > 0) {
      braceDepth -= 1;
      source += ')';
    } else if (char === ',' && braceDepth > 0) {
      source += '|';
    } else {
      source += char.replace(/[.+^$()|\\{}[\]]/g, '\\$&');
    }
  }
  source += ')'.repeat(braceDepth);
  const compiled = RE2JS.compile(`^${source}$`);
  return { test: (subject) => compiled.matches(subject) };
}

export interface TextEdit {
  /** Character range of the original text that is replaced. */
  start: number;
  end: number;
  replacement: string;
}

const DIFF_CONTEXT_LINES = 2;

/**
 * A unified-style diff of `edits` (sorted, non-overlapping) applied to `original`, with two lines
 * of context: the model sees what changed without re-reading the file.
 */
export function unifiedDiff(original: string, edits: readonly TextEdit[], label: string): string {
  const lines = original.split('\n');
  const starts: number[] = [];
  let offset = 0;
  for (const line of lines) {
    starts.push(offset);
    offset += line.length + 1;
  }
  const lineAt = (position: number): number => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (starts[middle]! <= position) low = middle;
      else high = middle - 1;
    }
    return low;
  };
  const realLineCount = original.endsWith('\n') ? lines.length - 1 : lines.length;

  // Each edit becomes whole changed lines, minus the lines it leaves as they were.
  const changes = edits.map((edit) => {
    const first = lineAt(edit.start);
    const last = lineAt(Math.max(edit.start, edit.end - 1));
    const through = edit.end > starts[last]! + lines[last]!.length ? Math.min(last + 1, lines.length - 1) : last;
    const lineEnd = starts[through]! + lines[through]!.length;
    const replaced = original.slice(starts[first], edit.start) + edit.replacement + original.slice(edit.end, lineEnd);
    const before = lines.slice(first, through + 1);
    const after = replaced.split('\n');
    // Counted, then cut once: cutting a line at a time copied the rest each time, and an edit of
    // 40,000 unchanged lines took 8 s on the worker's main thread.
    let same = 0;
    while (same < before.length && same < after.length && before[same] === after[same]) same += 1;
    let sameAtEnd = 0;
    while (sameAtEnd < before.length - same && sameAtEnd < after.length - same && before[before.length - 1 - sameAtEnd] === after[after.length - 1 - sameAtEnd]) sameAtEnd += 1;
    return { at: first + same, removed: before.slice(same, before.length - sameAtEnd), added: after.slice(same, after.length - sameAtEnd) };
  }).filter((change) => change.removed.length > 0 || change.added.length > 0);

  const output = [`--- a/${label}`, `+++ b/${label}`];
  let delta = 0;
  for (let index = 0; index < changes.length; ) {
    let stop = index;
    while (stop + 1 < changes.length) {
      const current = changes[stop]!;
      if (changes[stop + 1]!.at - (current.at + current.removed.length) > 2 * DIFF_CONTEXT_LINES) break;
      stop += 1;
    }
    const group = changes.slice(index, stop + 1);
    const last = group[group.length - 1]!;
    const hunkStart = Math.max(0, group[0]!.at - DIFF_CONTEXT_LINES);
    const hunkEnd = Math.max(hunkStart, Math.min(realLineCount, last.at + last.removed.length + DIFF_CONTEXT_LINES));
    const body: string[] = [];
    let cursor = hunkStart;
    let groupDelta = 0;
    for (const change of group) {
      for (; cursor < change.at; cursor += 1) body.push(` ${lines[cursor]}`);
      // Pushed one by one: spread as arguments, a change of 100,000 lines overflows the stack.
      for (const line of change.removed) body.push(`-${line}`);
      for (const line of change.added) body.push(`+${line}`);
      cursor = change.at + change.removed.length;
      groupDelta += change.added.length - change.removed.length;
    }
    for (; cursor < hunkEnd; cursor += 1) body.push(` ${lines[cursor]}`);
    const oldCount = Math.max(hunkEnd, cursor) - hunkStart;
    output.push(`@@ -${hunkStart + 1},${oldCount} +${hunkStart + 1 + delta},${oldCount + groupDelta} @@`);
    for (const line of body) output.push(line);
    delta += groupDelta;
    index = stop + 1;
  }
  return output.join('\n');
}
