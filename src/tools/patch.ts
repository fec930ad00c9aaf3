// The patch tool: targeted find-and-replace in one file. Exact match first, then a match that
// forgives trailing whitespace and tab/space indentation, the edits models most often get wrong.
import { z } from 'zod';
import { register } from '../registry/registry';
import { isCancellation, toolError, toolResult } from '../registry/results';
import { describeFileError, displayPath, isBinary, unifiedDiff, type TextEdit } from './file-helpers';
import { terminalBackendAvailable } from './terminal-availability';

const MAX_DIFF_CHARS = 4000;
const TAB_WIDTH = 4;
const CLOSEST_LINE_MIN_SIMILARITY = 0.5;
/** More occurrences are refused: each is an edit held, applied and shown, on the worker's main thread. */
const MAX_REPLACEMENTS = 100_000;
/**
 * Larger files are matched exactly only: the tolerant match and the closest-line hint normalise
 * every line, 2.5 s on the worker's main thread for 20 MB of empty lines (and a file tool reads 64).
 */
const MAX_TOLERANT_CHARS = 2 * 1024 * 1024;
/** Characters of a line the closest-line hint compares. */
const HINT_PROBE_CHARS = 200;

const patchArguments = z.object({
  mode: z.enum(['replace']).default('replace').describe("Edit mode: 'replace' (find old_string, replace it with new_string)"),
  path: z.string().describe('Path of the file to edit (absolute, or relative to the working directory)'),
  old_string: z
    .string()
    .describe('Exact text to find, including enough surrounding lines to be unique. No line-number prefixes.'),
  new_string: z.string().describe('Text to put in its place (empty to delete it)'),
  replace_all: z.boolean().default(false).describe('Replace every occurrence instead of requiring a unique match'),
});

register({
  name: 'patch',
  toolset: 'file',
  checkFn: terminalBackendAvailable,
  emoji: '🩹',
  schema: patchArguments,
  description: [
    'Edit a file by replacing old_string with new_string. old_string must match the file exactly and be unique',
    '(include surrounding lines), unless replace_all=true. Small whitespace or indentation differences are tolerated.',
    'Returns a diff of the change. Use this instead of sed/awk in the terminal; use write_file to replace a whole file.',
  ].join(' '),
  // Only the arguments are known here; the caller resolves the raw path against the workspace.
  concurrency: ({ path }) => ({ mode: 'path', path }),
  assess: ({ path, old_string: oldString, new_string: newString, replace_all: replaceAll }) =>
    typeof path === 'string'
      ? {
          // It reads the file too: its diff and its not-found hint show lines of it.
          reads: [path],
          writes: [path],
          preview: `replace${replaceAll ? ' every occurrence of' : ''}:\n${textOf(oldString)}\nwith:\n${textOf(newString)}`,
          previewChange: { before: textOf(oldString), after: textOf(newString), everywhere: replaceAll === true },
        }
      : {},
  handler: async ({ path, old_string: oldString, new_string: newString, replace_all: replaceAll }, context) => {
    if (oldString === '') return toolError('old_string must not be empty. To create or overwrite a file, use write_file.');
    if (oldString === newString) return toolError('old_string and new_string are identical: there is nothing to change.');
    const workspace = context.workspace;
    const absolute = workspace.resolve(path);
    try {
      const info = await workspace.stat(absolute);
      if (!info) return toolError(`File not found: ${path}`);
      if (info.type !== 'file') return toolError(`${path} is not a regular file; patch edits one file.`);
      const raw = await workspace.readFile(absolute);
      if (isBinary(raw)) return toolError(`Cannot patch binary file: ${path} (${raw.length} bytes)`);

      // Work in LF and convert back, so CRLF files stay CRLF whatever line endings the model sends.
      const original = raw.toString('utf8');
      const crlf = usesCrlf(original);
      const text = crlf ? toLf(original) : original;
      const wanted = crlf ? toLf(oldString) : oldString;
      const replacement = crlf ? toLf(newString) : newString;

      let ranges = exactMatches(text, wanted, MAX_REPLACEMENTS + 1);
      const fuzzy = ranges.length === 0;
      const tolerant = text.length <= MAX_TOLERANT_CHARS;
      if (fuzzy && tolerant) ranges = tolerantMatches(text, wanted, MAX_REPLACEMENTS + 1);
      if (ranges.length === 0) {
        const hint = tolerant
          ? notFoundHint(text, wanted)
          : `In a file this large (over ${MAX_TOLERANT_CHARS / 1024 / 1024} MB) old_string must match exactly, whitespace included; copy it from read_file.`;
        return toolError(`Could not find old_string in ${path}.`, { hint });
      }
      if (ranges.length > MAX_REPLACEMENTS) {
        return toolError(`old_string occurs more than ${MAX_REPLACEMENTS} times in ${path}; make that many edits with a command (sed) instead.`);
      }
      if (ranges.length > 1 && !replaceAll) {
        return toolError(
          `old_string was found ${ranges.length} times in ${path}. Add more surrounding context to make it unique, ` +
            'or set replace_all=true to replace every occurrence.',
        );
      }

      const edits: TextEdit[] = ranges.map(([start, end]) => ({ start, end, replacement }));
      const updated = applyEdits(text, edits);
      await workspace.writeFile(absolute, crlf ? updated.replace(/\n/g, '\r\n') : updated);

      const diff = unifiedDiff(text, edits, displayPath(workspace, absolute));
      return toolResult({
        success: true,
        path: absolute,
        replacements: edits.length,
        diff: diff.length > MAX_DIFF_CHARS ? `${diff.slice(0, MAX_DIFF_CHARS)}\n... [diff truncated]` : diff,
        ...(fuzzy ? { fuzzy: true } : {}),
      });
    } catch (error) {
      if (isCancellation(error, context.signal)) throw error;
      return toolError(`Could not patch ${path}: ${describeFileError(error)}`);
    }
  },
});

/**
 * `text` with the edits (in order, not overlapping) made, in one pass: rebuilding the whole text
 * once per edit took 11 s for 80,000 replacements, then overflowed the stack.
 */
function applyEdits(text: string, edits: readonly TextEdit[]): string {
  const pieces: string[] = [];
  let kept = 0;
  for (const edit of edits) {
    pieces.push(text.slice(kept, edit.start), edit.replacement);
    kept = edit.end;
  }
  pieces.push(text.slice(kept));
  return pieces.join('');
}

/** An argument as the model sent it, for a preview (not yet validated: anything may arrive). */
function textOf(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value) ?? '';
}

/** True when every line break is CRLF (mixed files are left as they are). */
function usesCrlf(text: string): boolean {
  return text.includes('\r\n') && !/(^|[^\r])\n/.test(text);
}

function toLf(text: string): string {
  return text.replace(/\r\n/g, '\n');
}

/** Non-overlapping [start, end) ranges where `wanted` occurs verbatim, at most `limit` of them. */
function exactMatches(text: string, wanted: string, limit: number): [number, number][] {
  const ranges: [number, number][] = [];
  for (let index = text.indexOf(wanted); index !== -1 && ranges.length < limit; index = text.indexOf(wanted, index + wanted.length)) {
    ranges.push([index, index + wanted.length]);
  }
  return ranges;
}

/**
 * Ranges of whole-line blocks equal to `wanted` line by line, ignoring trailing whitespace and
 * comparing indentation by width (tabs expanded). A block of blank lines alone never matches.
 */
function tolerantMatches(text: string, wanted: string, limit: number): [number, number][] {
  const wantedLines = wanted.split('\n');
  const endsWithNewline = wanted.endsWith('\n');
  if (endsWithNewline) wantedLines.pop();
  const wantedKeys = wantedLines.map(normalizeLine);
  if (wantedKeys.every((key) => key === '')) return [];

  const lines = text.split('\n');
  const keys = lines.map(normalizeLine);
  const starts: number[] = [];
  let offset = 0;
  for (const line of lines) {
    starts.push(offset);
    offset += line.length + 1;
  }
  const ranges: [number, number][] = [];
  for (const first of blockStarts(keys, wantedKeys).slice(0, limit)) {
    const last = first + wantedKeys.length - 1;
    const newline = endsWithNewline && last < lines.length - 1 ? 1 : 0;
    ranges.push([starts[first]!, starts[last]! + lines[last]!.length + newline]);
  }
  return ranges;
}

/**
 * Where `wanted` occurs in `keys` as a run of equal items, not overlapping, in time linear in both
 * (Knuth-Morris-Pratt): comparing the block again at each line took time the lines times the
 * block's, 4 s for a block of 20,000 equal lines in a file of 100,000, on the worker's main thread.
 */
function blockStarts(keys: readonly string[], wanted: readonly string[]): number[] {
  // fallback[i]: the length of the longest proper prefix of wanted[0..i] that is also its suffix.
  const fallback = new Array<number>(wanted.length).fill(0);
  for (let index = 1, length = 0; index < wanted.length; ) {
    if (wanted[index] === wanted[length]) fallback[index++] = ++length;
    else if (length > 0) length = fallback[length - 1]!;
    else fallback[index++] = 0;
  }
  const found: number[] = [];
  for (let index = 0, matched = 0; index < keys.length; ) {
    if (keys[index] === wanted[matched]) {
      index += 1;
      matched += 1;
      if (matched === wanted.length) {
        found.push(index - matched);
        matched = 0; // Not overlapping: the next block starts after this one.
      }
    } else if (matched > 0) matched = fallback[matched - 1]!;
    else index += 1;
  }
  return found;
}

function normalizeLine(line: string): string {
  const trimmed = line.trimEnd();
  const indent = /^[ \t]*/.exec(trimmed)![0];
  let width = 0;
  for (const char of indent) width = char === '\t' ? width + TAB_WIDTH - (width % TAB_WIDTH) : width + 1;
  return ' '.repeat(width) + trimmed.slice(indent.length);
}

/** Points the model at what it probably meant: the most similar line, or the read_file prefix slip. */
function notFoundHint(text: string, wanted: string): string {
  if (/^\s*\d+\|/m.test(wanted)) {
    return 'old_string seems to contain line-number prefixes from read_file ("   12|"); remove them.';
  }
  // Cut, and its bigrams counted once: a 40,000-character line of old_string compared with each of
  // 50,000 lines took 70 s on the worker's main thread. A line's first characters find it as well.
  const probe = wanted
    .split('\n')
    .map((line) => line.trim())
    .reduce((longest, line) => (line.length > longest.length ? line : longest), '')
    .slice(0, HINT_PROBE_CHARS);
  let best = { line: 0, score: 0, text: '' };
  if (probe.length >= 3) {
    const probeBigrams = bigramCounts(probe);
    text.split('\n').forEach((line, index) => {
      const score = similarity(probe, probeBigrams, line.trim().slice(0, HINT_PROBE_CHARS));
      if (score > best.score) best = { line: index + 1, score, text: line.trim() };
    });
  }
  if (best.score < CLOSEST_LINE_MIN_SIMILARITY) {
    return 'Re-read the file with read_file and copy old_string exactly as it appears.';
  }
  const shown = best.text.length > 200 ? `${best.text.slice(0, 200)}...` : best.text;
  return `The closest line is line ${best.line}: "${shown}". Re-read the file with read_file and copy old_string exactly.`;
}

function bigramCounts(text: string): ReadonlyMap<string, number> {
  const bigrams = new Map<string, number>();
  for (let index = 0; index < text.length - 1; index += 1) {
    const pair = text.slice(index, index + 2);
    bigrams.set(pair, (bigrams.get(pair) ?? 0) + 1);
  }
  return bigrams;
}

/** Dice coefficient of character bigrams (`aBigrams`: those of `a`): cheap, and good enough to spot a near-miss line. */
function similarity(a: string, aBigrams: ReadonlyMap<string, number>, b: string): number {
  if (a === b) return 1;
  if (a.length < 2 || b.length < 2) return 0;
  const bigrams = new Map(aBigrams);
  let shared = 0;
  for (let index = 0; index < b.length - 1; index += 1) {
    const pair = b.slice(index, index + 2);
    const count = bigrams.get(pair) ?? 0;
    if (count > 0) {
      bigrams.set(pair, count - 1);
      shared += 1;
    }
  }
  return (2 * shared) / (a.length + b.length - 2);
}
