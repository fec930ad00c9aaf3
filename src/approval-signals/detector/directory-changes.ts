// Where the shell is after a `cd`. A `cd` that fails (no such folder, not a folder) leaves the
// shell where it was, and the text goes on: `cd build; rm -rf *` empties the workspace when build
// does not exist. So the walker keeps the other folders the shell may be in, and a command after
// such a `cd` is judged in each (see simple-command.ts); `cd x && ...`, `cd x || exit` and
// `set -e` make the `cd` certain for what they guard.
import type { ExecutedCommand } from './analysis-types';
import { resolvePath } from './paths';
import type { Scope } from './walk-scope';

/** Past this many possible folders the rest is unknown (null): judged as a folder nobody knows. */
const MAX_FALLBACKS = 4;

/** Follows `cd`, `pushd` and `popd` in `scope`. */
export function followDirectoryChange(command: ExecutedCommand, scope: Scope, home: string): void {
  if (command.program !== 'cd' && command.program !== 'pushd' && command.program !== 'popd') return;
  const before = [scope.cwd, ...(scope.cwdFallbacks ?? [])];
  const destinationFrom = destination(command, home);
  const [next, ...succeeded] = distinct(before.map(destinationFrom));
  const failed = scope.errexit ? [] : before;
  scope.cwd = next ?? null;
  scope.cdSucceeded = bounded(succeeded.filter((cwd) => cwd !== scope.cwd));
  scope.cwdFallbacks = bounded(distinct([...succeeded, ...failed]).filter((cwd) => cwd !== scope.cwd));
}

/** Where the command takes a shell that is in `cwd`, if it succeeds. */
function destination(command: ExecutedCommand, home: string): (cwd: string | null) => string | null {
  if (command.program === 'popd') return () => null;
  const target = command.argv.slice(1).find((word) => !/^-[LPe@]+$/.test(word.value));
  if (!target) return command.program === 'cd' ? () => home : (cwd) => cwd;
  return (cwd) => {
    const resolved = resolvePath(target, cwd, home);
    return target.value === '-' || resolved.dynamic ? null : resolved.path;
  };
}

/** `set -e` or `set -o errexit`. */
export function turnsOnErrexit(command: ExecutedCommand): boolean {
  const options = command.argv.slice(1).map((word) => word.value);
  return command.program === 'set' && (options.some((option) => /^-[a-zA-Z]*e/.test(option)) || options.join(' ').includes('-o errexit'));
}

function distinct(cwds: readonly (string | null)[]): (string | null)[] {
  return [...new Set(cwds)];
}

function bounded(cwds: (string | null)[]): (string | null)[] {
  return cwds.length <= MAX_FALLBACKS ? cwds : [...cwds.slice(0, MAX_FALLBACKS - 1), null];
}
