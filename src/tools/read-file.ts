// The read_file tool: a page of a text file with line numbers, so the model can cite and patch
// exact lines, and pointers (next offset, similar names) instead of dead ends.
import path from 'node:path';
import { z } from 'zod';
import type { Workspace } from '../environments/workspace';
import { register } from '../registry/registry';
import { isCancellation, toolError, toolResult } from '../registry/results';
import { describeFileError, isBinary, linePage, SKIPPED_DIRECTORIES } from './file-helpers';
import { terminalBackendAvailable } from './terminal-availability';

const MAX_LINE_CHARS = 2000;
const MAX_SIMILAR_FILES = 5;
/** Listing a directory goes through `walk`, which recurses: bound it so a huge tree stays cheap. */
const SIMILAR_FILES_SCAN_LIMIT = 5000;

const readFileArguments = z.object({
  path: z.string().describe('Path of the file to read (absolute, or relative to the working directory)'),
  offset: z.number().int().min(1).default(1).describe('Line number to start reading from (1-based, default: 1)'),
  limit: z.number().int().min(1).max(2000).default(500).describe('Maximum number of lines to read (default: 500, max: 2000)'),
});

register({
  name: 'read_file',
  toolset: 'file',
  checkFn: terminalBackendAvailable,
  emoji: '📖',
  schema: readFileArguments,
  description: [
    'Read a text file with line numbers. Each line is returned as "LINE_NUM|CONTENT".',
    'Use offset and limit to page through large files; the result says which offset to use next.',
    'Use this instead of cat/head/tail in the terminal. To list a directory, use search_files with target=\'files\'.',
  ].join(' '),
  retrySafe: true,
  // Only the arguments are known here; the caller resolves the raw path against the workspace.
  concurrency: ({ path: target }) => ({ mode: 'path', path: target, access: 'read' }),
  assess: ({ path: target }) => (typeof target === 'string' ? { reads: [target] } : {}),
  handler: async ({ path: target, offset, limit }, context) => {
    const workspace = context.workspace;
    const absolute = workspace.resolve(target);
    try {
      const info = await workspace.stat(absolute);
      if (!info) {
        const similar = await similarFiles(workspace, absolute);
        return toolError(`File not found: ${target}`, similar.length ? { similar_files: similar } : {});
      }
      if (info.type === 'directory') {
        return toolError(
          `${target} is a directory, not a file. Use search_files with target='files' to list its contents.`,
        );
      }
      const content = await workspace.readFile(absolute);
      if (isBinary(content)) return toolError(`Cannot read binary file: ${target} (${content.length} bytes)`);

      const { lines: page, total } = linePage(content, offset, limit);
      if (offset > Math.max(total, 1)) {
        return toolError(`Offset ${offset} is past the end of ${target} (total_lines: ${total}).`, { total_lines: total });
      }
      const formatted = page.map((line, index) => {
        const text = line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)} ... [line truncated]` : line;
        return `${String(offset + index).padStart(6)}|${text}`;
      });
      const lastShown = offset - 1 + page.length;
      const more = lastShown < total;
      return toolResult({
        content: formatted.join('\n'),
        total_lines: total,
        path: absolute,
        ...(more
          ? {
              truncated: true,
              hint: `Showing lines ${offset}-${lastShown} of ${total}. Use offset=${lastShown + 1} to read more.`,
            }
          : {}),
      });
    } catch (error) {
      if (isCancellation(error, context.signal)) throw error;
      return toolError(`Could not read ${target}: ${describeFileError(error)}`);
    }
  },
});

/** Names in the missing file's directory that look like what the model meant (typos, wrong extension). */
async function similarFiles(workspace: Workspace, absolute: string): Promise<string[]> {
  const directory = path.dirname(absolute);
  if ((await workspace.stat(directory))?.type !== 'directory') return [];
  const wanted = path.basename(absolute).toLowerCase();
  const wantedStem = stem(wanted);
  const candidates: { name: string; score: number }[] = [];
  const walk = workspace.walk(directory, { maxFiles: SIMILAR_FILES_SCAN_LIMIT, skipDirectories: SKIPPED_DIRECTORIES });
  for await (const file of walk) {
    if (path.dirname(file) !== directory) continue;
    const name = path.basename(file);
    const lower = name.toLowerCase();
    const prefix = commonPrefixLength(lower, wanted);
    const related =
      prefix >= Math.min(3, wanted.length) ||
      (wantedStem.length > 0 && lower.includes(wantedStem)) ||
      (stem(lower).length > 0 && wanted.includes(stem(lower)));
    if (related) candidates.push({ name, score: prefix });
  }
  candidates.sort((a, b) => b.score - a.score || a.name.localeCompare(b.name));
  return candidates.slice(0, MAX_SIMILAR_FILES).map((candidate) => candidate.name);
}

function stem(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(0, dot) : name;
}

function commonPrefixLength(a: string, b: string): number {
  let length = 0;
  while (length < a.length && length < b.length && a[length] === b[length]) length += 1;
  return length;
}
