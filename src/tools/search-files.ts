// The search_files tool: grep-like content search and find-like file listing through the
// workspace, so it works on every backend and keeps results small and paged for the model.
import path from 'node:path';
import { z } from 'zod';
import { isSecretRead } from '../approval-signals/protected-paths';
import { isWithin } from '../environments/path-within';
import { register } from '../registry/registry';
import { persistedResultPath } from '../registry/result-budget';
import { isCancellation, toolError, toolResult } from '../registry/results';
import type { ToolContext } from '../registry/tool-entry';
import { describeFileError, displayPath, globMatcher, isBinary, SKIPPED_DIRECTORIES, splitLines } from './file-helpers';
import { LineMatcher, MatchBudgetSpent } from './line-matcher';
import { terminalBackendAvailable } from './terminal-availability';

const MAX_FILES = 20_000;
const MAX_FILE_BYTES = 2 * 1024 * 1024;
/** Large files a note names by path (the rest are counted). */
const LARGE_FILES_NAMED = 5;
const MAX_MATCH_CHARS = 500;
/** How often (in files) a long walk reports liveness and notices cancellation. */
const HEARTBEAT_EVERY_FILES = 200;
/** Matching time one content search may spend (in a thread of its own, see line-matcher.ts). */
const MATCH_BUDGET_MS = 30_000;

const searchArguments = z.object({
  pattern: z.string().describe("A JavaScript regex for target='content'; a glob such as '*.ts' for target='files'"),
  target: z.enum(['content', 'files']).default('content').describe("'content' searches inside files, 'files' finds files by name"),
  path: z.string().default('.').describe('Directory or file to search (default: the working directory)'),
  file_glob: z.string().optional().describe("Only search files whose name matches this glob, e.g. '*.py'"),
  limit: z.number().int().min(1).max(1000).default(50).describe('Maximum results to return (default: 50)'),
  offset: z.number().int().min(0).default(0).describe('Skip this many results, to page through many (default: 0)'),
  context: z.number().int().min(0).max(10).default(0).describe('Lines of context around each content match (default: 0)'),
});
type SearchArguments = z.infer<typeof searchArguments>;

interface ContentMatch {
  path: string;
  line: number;
  text: string;
  context_before?: string[];
  context_after?: string[];
}

register({
  name: 'search_files',
  toolset: 'file',
  checkFn: terminalBackendAvailable,
  emoji: '🔎',
  schema: searchArguments,
  description: [
    "Search file contents (target='content', pattern is a regex) or find files by name (target='files', pattern is",
    "a glob like '*.ts' or 'src/**/*.test.ts'). Skips .git, node_modules, build output and binary files.",
    'Results are paged with offset and limit. Use this instead of grep/rg/find/ls in the terminal.',
  ].join(' '),
  retrySafe: true,
  concurrency: () => ({ mode: 'parallel' }),
  // The search reads every file under its path (links inside the tree are not followed).
  assess: ({ path: root }) => ({ searches: [typeof root === 'string' && root ? root : '.'] }),
  handler: async (args, context) => {
    const root = context.workspace.resolve(args.path);
    try {
      if (!(await context.workspace.stat(root))) return toolError(`Path not found: ${args.path}`);
      return args.target === 'files' ? await findFiles(args, root, context) : await searchContent(args, root, context);
    } catch (error) {
      if (isCancellation(error, context.signal)) throw error;
      return toolError(`Could not search ${args.path}: ${describeFileError(error)}`);
    }
  },
});

/**
 * What a search may read: files under the root's real path that a read_file would not need a
 * human's approval for. The gate judged only the root; each file is judged here, as it is found.
 */
interface SearchScope {
  root: string;
  realRoot: string;
  home: string;
  secretFiles: readonly string[];
  /** The call was cleared to search a folder that holds secrets (a person approved it, or approvals are off). */
  clearedIntoSecrets: boolean;
  /** What the session's commands cannot see (local backend): a read_file of it waits for a human too. */
  hiddenFromCommands?: (realPath: string) => boolean;
  /** Files left out because reading one waits for a human. */
  skippedSecrets: number;
  /** Files left out because they are larger than a search reads: named, or "no matches" would mislead. */
  skippedLarge: string[];
  /** Why the walk stopped before the end of the tree (its entry or byte bound), if it did. */
  cutShort?: string;
}

async function scopeOf(root: string, context: ToolContext): Promise<SearchScope> {
  const { workspace } = context;
  const [realRoot, home, secretFiles] = await Promise.all([
    workspace.realpath(root),
    workspace.realpath('~').catch(() => workspace.resolve('~')),
    context.services?.secretFiles?.() ?? [],
  ]);
  // Its result is kept for this session alone (see cleared-call.ts), as a read_file of the secret would be.
  const clearedIntoSecrets = context.commandApproval?.approved === true && context.commandApproval.sensitive === true;
  const hidden = context.services?.hiddenFromCommands?.(context.environment.handle);
  // The session's own saved output lies in the host's temporary folder, which commands do not see.
  const ownResults = path.dirname(persistedResultPath(context.sessionId, 'search'));
  const hiddenFromCommands = hidden && ((realPath: string) => !isWithin(realPath, ownResults) && hidden(realPath));
  return { root, realRoot, home, secretFiles, clearedIntoSecrets, ...(hiddenFromCommands ? { hiddenFromCommands } : {}), skippedSecrets: 0, skippedLarge: [] };
}

function isSecret(scope: SearchScope, realPath: string): boolean {
  if (scope.clearedIntoSecrets) return false;
  return isSecretRead(realPath, scope.home, scope.secretFiles) || scope.hiddenFromCommands?.(realPath) === true;
}

/** Files under `root` whose name passes `file_glob` and that are no secret, with a liveness report every so often. */
async function* candidateFiles(scope: SearchScope, fileGlob: string | undefined, context: ToolContext) {
  const nameFilter = fileGlob ? globMatcher(fileGlob) : undefined;
  let seen = 0;
  const walk = context.workspace.walk(scope.root, {
    maxFiles: MAX_FILES,
    skipDirectories: SKIPPED_DIRECTORIES,
    onCutShort: (reason) => (scope.cutShort = reason),
  });
  for await (const file of walk) {
    seen += 1;
    if (seen % HEARTBEAT_EVERY_FILES === 0) {
      context.signal.throwIfAborted();
      context.heartbeat({ filesScanned: seen });
    }
    if (nameFilter && !nameFilter.test(path.basename(file))) continue;
    // The walk follows no links below the root, so a file's real path is the root's plus its own name.
    if (isSecret(scope, path.join(scope.realRoot, path.relative(scope.root, file)))) scope.skippedSecrets += 1;
    else yield file;
  }
}

/** The file's text, read only where the search may read (null: skip it). */
async function readCandidate(scope: SearchScope, file: string, context: ToolContext): Promise<string | null> {
  const { workspace } = context;
  let content: Buffer | undefined;
  if (workspace.readWithin) {
    // Opened without following a link and named by what was opened: a folder swapped for a link leads nowhere.
    const read = await workspace.readWithin(file, scope.realRoot, MAX_FILE_BYTES);
    if (!read) {
      // Only for the files it left out (links, devices, large files): why, for the large ones.
      const info = await workspace.stat(file);
      if (info?.type === 'file' && info.size > MAX_FILE_BYTES) scope.skippedLarge.push(displayPath(workspace, file));
      return null;
    }
    if (isSecret(scope, read.realPath)) {
      scope.skippedSecrets += 1;
      return null;
    }
    content = read.content;
  } else {
    const info = await workspace.stat(file);
    if (info && info.size > MAX_FILE_BYTES) scope.skippedLarge.push(displayPath(workspace, file));
    if (!info || info.size > MAX_FILE_BYTES) return null;
    content = await workspace.readFile(file).catch(() => undefined);
  }
  return !content || isBinary(content) ? null : content.toString('utf8');
}

async function searchContent(args: SearchArguments, root: string, context: ToolContext): Promise<string> {
  const matcher = new LineMatcher(args.pattern, MATCH_BUDGET_MS, context.signal);
  try {
    return await searchContentWith(matcher, args, root, context);
  } finally {
    matcher.close();
  }
}

async function searchContentWith(matcher: LineMatcher, args: SearchArguments, root: string, context: ToolContext): Promise<string> {
  const note = literalNote(await matcher.note());
  const scope = await scopeOf(root, context);
  const redact = context.services?.redact ?? ((text: string) => text);
  const matches: ContentMatch[] = [];
  let total = 0;
  let budgetSpent = false;
  for await (const file of candidateFiles(scope, args.file_glob, context)) {
    const content = await readCandidate(scope, file, context);
    if (content === null) continue;
    const lines = splitLines(content);
    let matching: number[];
    try {
      const hits = await matcher.matching(lines);
      // A line counts only if the pattern still matches it as the model would see it: counts of
      // matches inside hidden secrets would spell them out a character at a time.
      const seen = hits.length ? await matcher.matching(hits.map((index) => redact(lines[index]!))) : [];
      matching = seen.map((position) => hits[position]!);
    } catch (error) {
      if (!(error instanceof MatchBudgetSpent)) throw error;
      budgetSpent = true;
      break;
    }
    for (const index of matching) {
      total += 1;
      if (total <= args.offset || matches.length >= args.limit) continue;
      const match: ContentMatch = { path: displayPath(context.workspace, file), line: index + 1, text: cut(lines[index]!) };
      if (args.context > 0) {
        match.context_before = lines.slice(Math.max(0, index - args.context), index).map(cut);
        match.context_after = lines.slice(index + 1, index + 1 + args.context).map(cut);
      }
      matches.push(match);
    }
  }
  const where = args.file_glob ? ` in files matching '${args.file_glob}'` : '';
  const emptyHint =
    `No matches for '${args.pattern}' under ${args.path}${where}. Try a broader pattern, another path, ` +
    "or target='files' to search file names.";
  return page(matches, total, args, emptyHint, joinNotes(note, cutShortNote(scope), budgetSpent ? budgetNote() : undefined, skippedNote(scope), largeFilesNote(scope)));
}

function budgetNote(): string {
  return `Results are partial: matching this pattern took more than ${MATCH_BUDGET_MS / 1000} s (its size times the length of the lines); use a simpler pattern or a narrower path.`;
}

async function findFiles(args: SearchArguments, root: string, context: ToolContext): Promise<string> {
  const pattern = args.pattern.replace(/^\.\//, '') || '*';
  const matcher = globMatcher(pattern);
  const byPath = pattern.includes('/');
  const found: string[] = [];
  const scope = await scopeOf(root, context);
  for await (const file of candidateFiles(scope, args.file_glob, context)) {
    const subject = byPath ? path.relative(root, file).split(path.sep).join('/') || path.basename(file) : path.basename(file);
    if (matcher.test(subject)) found.push(displayPath(context.workspace, file));
  }
  found.sort();
  const matches = found.slice(args.offset, args.offset + args.limit);
  const emptyHint =
    `No files matching '${args.pattern}' under ${args.path}. The pattern is a glob on file names: ` +
    `use wildcards, e.g. '*${args.pattern.replace(/\*/g, '')}*'.`;
  return page(matches, found.length, args, emptyHint, joinNotes(cutShortNote(scope), skippedNote(scope)));
}

function cutShortNote(scope: SearchScope): string | undefined {
  if (!scope.cutShort) return undefined;
  return `Results are partial: ${scope.cutShort}. Search a narrower path to see the rest.`;
}

function skippedNote(scope: SearchScope): string | undefined {
  if (!scope.skippedSecrets) return undefined;
  const files = scope.skippedSecrets === 1 ? '1 file was' : `${scope.skippedSecrets} files were`;
  return `${files} skipped: they hold secrets (keys, credentials, the worker's own files) or lie where commands cannot see, which read_file shows only with a person's approval.`;
}

function largeFilesNote(scope: SearchScope): string | undefined {
  const large = scope.skippedLarge;
  if (!large.length) return undefined;
  const named = large.slice(0, LARGE_FILES_NAMED).join(', ') + (large.length > LARGE_FILES_NAMED ? `, and ${large.length - LARGE_FILES_NAMED} more` : '');
  const files = large.length === 1 ? '1 file larger' : `${large.length} files larger`;
  return `${files} than ${MAX_FILE_BYTES / 1024 / 1024} MB ${large.length === 1 ? 'was' : 'were'} not searched (${named}): search ${large.length === 1 ? 'it' : 'them'} with grep in the terminal, or read ${large.length === 1 ? 'it' : 'them'} in pages with read_file.`;
}

function joinNotes(...notes: (string | undefined)[]): string | undefined {
  const present = notes.filter((note): note is string => Boolean(note));
  return present.length ? present.join(' ') : undefined;
}

function page<T>(matches: T[], total: number, args: SearchArguments, emptyHint: string, note?: string): string {
  const truncated = total > args.offset + matches.length && matches.length > 0;
  const shownTo = args.offset + matches.length;
  const hint =
    matches.length === 0
      ? total > 0
        ? `offset ${args.offset} is past the last of ${total} results.`
        : emptyHint
      : truncated
        ? `Showing results ${args.offset + 1}-${shownTo} of ${total}. Use offset=${shownTo} for more.`
        : undefined;
  return toolResult({
    matches,
    total_matches: total,
    truncated,
    ...(note ? { note } : {}),
    ...(hint ? { hint } : {}),
  });
}

/** Why the pattern was searched for as literal text, in the model's words. */
function literalNote(reason: string | undefined): string | undefined {
  if (reason === undefined) return undefined;
  return `The pattern is not a regular expression this search supports (${reason}; lookaround and backreferences are not); it was searched for as literal text.`;
}

function cut(line: string): string {
  return line.length > MAX_MATCH_CHARS ? `${line.slice(0, MAX_MATCH_CHARS)} ... [line truncated]` : line;
}
