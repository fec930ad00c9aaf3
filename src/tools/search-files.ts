// The search_files tool: grep-like content search and find-like file listing through the
// workspace, so it works on every backend and keeps results small and paged for the model.
import path from 'node:path';
import { z } from 'zod';
import type { Workspace } from '../environments/workspace';
import { register } from '../registry/registry';
import { isCancellation, toolError, toolResult } from '../registry/results';
import type { ToolContext } from '../registry/tool-entry';
import { describeFileError, displayPath, globToRegExp, isBinary, SKIPPED_DIRECTORIES, splitLines } from './file-helpers';
import { terminalBackendAvailable } from './terminal-availability';

const MAX_FILES = 20_000;
const MAX_FILE_BYTES = 2 * 1024 * 1024;
const MAX_MATCH_CHARS = 500;
/** How often (in files) a long walk reports liveness and notices cancellation. */
const HEARTBEAT_EVERY_FILES = 200;

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

/** Files under `root` whose name passes `file_glob`, with a liveness report every so often. */
async function* candidateFiles(workspace: Workspace, root: string, fileGlob: string | undefined, context: ToolContext) {
  const nameFilter = fileGlob ? globToRegExp(fileGlob) : undefined;
  let seen = 0;
  for await (const file of workspace.walk(root, { maxFiles: MAX_FILES, skipDirectories: SKIPPED_DIRECTORIES })) {
    seen += 1;
    if (seen % HEARTBEAT_EVERY_FILES === 0) {
      context.signal.throwIfAborted();
      context.heartbeat({ filesScanned: seen });
    }
    if (!nameFilter || nameFilter.test(path.basename(file))) yield file;
  }
}

async function searchContent(args: SearchArguments, root: string, context: ToolContext): Promise<string> {
  const { regex, note } = compilePattern(args.pattern);
  const matches: ContentMatch[] = [];
  let total = 0;
  for await (const file of candidateFiles(context.workspace, root, args.file_glob, context)) {
    const info = await context.workspace.stat(file);
    if (!info || info.size > MAX_FILE_BYTES) continue;
    const content = await context.workspace.readFile(file).catch(() => undefined);
    if (!content || isBinary(content)) continue;
    const lines = splitLines(content.toString('utf8'));
    lines.forEach((line, index) => {
      if (!regex.test(line)) return;
      total += 1;
      if (total <= args.offset || matches.length >= args.limit) return;
      const match: ContentMatch = { path: displayPath(context.workspace, file), line: index + 1, text: cut(line) };
      if (args.context > 0) {
        match.context_before = lines.slice(Math.max(0, index - args.context), index).map(cut);
        match.context_after = lines.slice(index + 1, index + 1 + args.context).map(cut);
      }
      matches.push(match);
    });
  }
  const scope = args.file_glob ? ` in files matching '${args.file_glob}'` : '';
  const emptyHint =
    `No matches for '${args.pattern}' under ${args.path}${scope}. Try a broader pattern, another path, ` +
    "or target='files' to search file names.";
  return page(matches, total, args, emptyHint, note);
}

async function findFiles(args: SearchArguments, root: string, context: ToolContext): Promise<string> {
  const pattern = args.pattern.replace(/^\.\//, '') || '*';
  const matcher = globToRegExp(pattern);
  const byPath = pattern.includes('/');
  const found: string[] = [];
  for await (const file of candidateFiles(context.workspace, root, args.file_glob, context)) {
    const subject = byPath ? path.relative(root, file).split(path.sep).join('/') || path.basename(file) : path.basename(file);
    if (matcher.test(subject)) found.push(displayPath(context.workspace, file));
  }
  found.sort();
  const matches = found.slice(args.offset, args.offset + args.limit);
  const emptyHint =
    `No files matching '${args.pattern}' under ${args.path}. The pattern is a glob on file names: ` +
    `use wildcards, e.g. '*${args.pattern.replace(/\*/g, '')}*'.`;
  return page(matches, found.length, args, emptyHint);
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

/** The pattern as a regex; `(?i)` (a habit from grep and Python) turns on case-insensitivity. */
function compilePattern(pattern: string): { regex: RegExp; note?: string } {
  const insensitive = pattern.startsWith('(?i)');
  const source = insensitive ? pattern.slice(4) : pattern;
  const flags = insensitive ? 'i' : '';
  try {
    return { regex: new RegExp(source, flags) };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      regex: new RegExp(source.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), flags),
      note: `The pattern is not a valid regular expression (${reason}); it was searched for as literal text.`,
    };
  }
}

function cut(line: string): string {
  return line.length > MAX_MATCH_CHARS ? `${line.slice(0, MAX_MATCH_CHARS)} ... [line truncated]` : line;
}
