// A walk on a backend reached through a shell: one `find` for the whole tree, cut where it runs
// (`head -c`) so no more than the walk's byte bound crosses to the worker, then held to the entry
// and byte bounds again as it is read, and put in the local backend's order.
import path from 'node:path';
import { shellQuote } from '../shell-quote';
import { cutShortReporter, MAX_WALK_BYTES, MAX_WALK_ENTRIES, type WalkOptions } from '../workspace';

/** Printed after the last name once find has finished: every name starts with `/`, so none can forge it. */
const COMPLETE_MARKER = 'hermes-walk-complete';

/** The most bytes the walk's command prints: the names' bound, then room for the marker. */
export function findWalkOutputBytes(options: WalkOptions): number {
  return (options.maxBytes ?? MAX_WALK_BYTES) + COMPLETE_MARKER.length + 1;
}

/** Shell text that lists the regular files under `start` (links not followed below it), NUL-separated. */
export function findWalkCommand(start: string, options: WalkOptions): string {
  const skipped = [...options.skipDirectories].map((name) => `-name ${shellQuote(name)}`).join(' -o ');
  const prune = skipped ? `\\( -mindepth 1 -type d \\( ${skipped} \\) -prune \\) -o ` : '';
  // Names past the bound push the marker out, so a listing that lacks it was cut.
  return `{ find ${shellQuote(start)} ${prune}-type f -print0 2>/dev/null; printf '%s\\0' ${COMPLETE_MARKER}; } | head -c ${findWalkOutputBytes(options)}`;
}

/** The files of a `findWalkCommand` listing, within the walk's bounds, by name within a directory. */
export function filesOfFindWalk(output: string, options: WalkOptions): string[] {
  const maxEntries = options.maxEntries ?? MAX_WALK_ENTRIES;
  const maxBytes = options.maxBytes ?? MAX_WALK_BYTES;
  const reportCut = cutShortReporter(options);
  const pieces = output.split('\0');
  // The piece after the last NUL is empty, or a name the bound cut in two.
  pieces.pop();
  if (pieces.at(-1) !== COMPLETE_MARKER) reportCut('bytes', maxBytes);
  const files: string[] = [];
  let bytes = 0;
  for (const name of pieces) {
    if (!name.startsWith('/')) continue;
    bytes += Buffer.byteLength(name) + 1;
    if (files.length >= maxEntries || bytes > maxBytes) {
      reportCut(files.length >= maxEntries ? 'entries' : 'bytes', files.length >= maxEntries ? maxEntries : maxBytes);
      break;
    }
    files.push(name);
  }
  files.sort(compareBySegments);
  return files.slice(0, Math.max(0, options.maxFiles));
}

function compareBySegments(a: string, b: string): number {
  const left = a.split(path.posix.sep);
  const right = b.split(path.posix.sep);
  for (let index = 0; index < Math.min(left.length, right.length); index += 1) {
    const order = (left[index] ?? '').localeCompare(right[index] ?? '');
    if (order !== 0) return order;
  }
  return left.length - right.length;
}
