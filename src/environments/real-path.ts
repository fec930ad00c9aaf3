// Where a path really leads once symbolic links are followed, on any backend. A path that does
// not exist yet resolves through its deepest existing ancestor, and a dangling link through its
// target, so a write that would create a file is judged by where the file would land.
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path/posix';

/** Following more links than this is a loop (the kernel gives up at 40 too). */
const MAX_LINKS = 40;

export interface RealPathPrimitives {
  /** The canonical path of an existing `absolute`, or null when it does not exist. */
  realpath(absolute: string): Promise<string | null>;
  /** The target of the symbolic link at `absolute`, or null when it is not one. */
  readlink(absolute: string): Promise<string | null>;
}

/** Resolves `absolute` (a normalised absolute POSIX path) with the backend's primitives. */
export async function resolveRealPath(absolute: string, primitives: RealPathPrimitives): Promise<string> {
  let links = 0;
  const resolve = async (target: string): Promise<string> => {
    const existing = await primitives.realpath(target);
    if (existing !== null) return existing;
    if (target === '/') return '/';
    const parent = await resolve(path.dirname(target));
    const here = path.join(parent, path.basename(target));
    const link = await primitives.readlink(here);
    if (link === null) return here;
    links += 1;
    if (links > MAX_LINKS) throw Object.assign(new Error(`Too many levels of symbolic links: ${absolute}`), { code: 'ELOOP' });
    return resolve(path.resolve(parent, link));
  };
  return resolve(path.normalize(absolute));
}

/**
 * `resolveRealPath` on this machine with synchronous calls: for the worker's own files (its
 * config, store, keys), resolved on every assessment. Each is a syscall of microseconds, where
 * the asynchronous calls queue for libuv's four threads. Never for paths a model names: those
 * may sit on a mount that hangs, which must not stall the worker's event loop.
 */
export function resolveOwnRealPath(absolute: string): Promise<string> {
  // lstat answers "no such file" without throwing: an error's stack costs more than the syscall.
  const entry = (target: string) => lstatSync(target, { throwIfNoEntry: false });
  return resolveRealPath(absolute, {
    realpath: async (target) => (entry(target) ? attempt(() => realpathSync.native(target)) : null),
    readlink: async (target) => (entry(target)?.isSymbolicLink() ? attempt(() => readlinkSync(target)) : null),
  });
}

function attempt(call: () => string): string | null {
  try {
    return call();
  } catch {
    return null;
  }
}

/**
 * The same resolution as one shell script (`$1` is the path), for backends reached through
 * execs: one round trip instead of one per path component. Prints the resolved path.
 */
export const REAL_PATH_SCRIPT = [
  // One line per answer, whatever the names hold: a line break in one is printed as `?` (the
  // folders it lies in stay as they are, and a protected name holds no line break).
  'nl="$(printf "\\n_")"; nl="${nl%_}"',
  'say() { o="$1"; s=""; while :; do case "$o" in *"$nl"*) s="$s${o%%"$nl"*}?"; o="${o#*"$nl"}" ;; *) printf "%s\\n" "$s$o"; return ;; esac; done; }',
  'p="$1"; rest=""; n=0',
  'while [ "$n" -lt 40 ]; do',
  '  n=$((n+1))',
  '  if [ -e "$p" ]; then r=$(cd -P -- "$(dirname -- "$p")" 2>/dev/null && pwd -P) || exit 1',
  '    b=$(basename -- "$p"); if [ -L "$p" ]; then r=$(readlink -f -- "$p") || exit 1; b=""',
  '    elif [ -d "$p" ]; then r=$(cd -P -- "$p" && pwd -P) || exit 1; b=""; fi',
  '    say "${r%/}${b:+/$b}$rest"; exit 0; fi',
  '  if [ -L "$p" ]; then t=$(readlink -- "$p"); case "$t" in /*) p="$t" ;; *) p="$(dirname -- "$p")/$t" ;; esac; continue; fi',
  '  if [ "$p" = / ]; then say "/${rest#/}"; exit 0; fi',
  '  rest="/$(basename -- "$p")$rest"; p=$(dirname -- "$p")',
  'done',
  'exit 40',
].join('\n');

/** The script's answer, normalised (`//x` and trailing slashes folded). */
export function parseRealPathOutput(output: string, fallback: string): string {
  const line = output.split('\n').find((candidate) => candidate.startsWith('/'));
  return path.normalize(line ?? fallback);
}

/**
 * REAL_PATH_SCRIPT over every argument (`$@`), one line each: `+<path>` resolved, `-` not. A
 * line break in a path would otherwise shift every later answer onto the wrong path.
 */
export const REAL_PATHS_SCRIPT = `real_path() (
${REAL_PATH_SCRIPT}
)
for a do if r=$(real_path "$a"); then printf '+%s\\n' "$r"; else printf -- '-\\n'; fi; done`;

/** The batch script's answer, one entry per path asked. */
export function parseRealPathsOutput(output: string, asked: readonly string[]): (string | undefined)[] {
  const lines = output.split('\n');
  return asked.map((target, index) => {
    const line = lines[index];
    return line?.startsWith('+') ? parseRealPathOutput(line.slice(1), target) : undefined;
  });
}
