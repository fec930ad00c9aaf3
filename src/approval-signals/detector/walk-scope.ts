// The walker's view of the shell state while it moves through the text: working directory
// (followed through `cd`), literal variables, the wrappers around the current text, nesting.
import type { Invocation } from './analysis-types';

export interface Scope {
  /** Working directory, `null` once a `cd` went somewhere unknown. */
  cwd: string | null;
  /** Other folders the shell may be in: a `cd` that fails leaves it where it was (see directory-changes.ts). */
  cwdFallbacks?: readonly (string | null)[];
  /** After a `cd`: the fallbacks that remain if it succeeded (for what `&&` runs after it). */
  cdSucceeded?: readonly (string | null)[];
  /** `set -e` is on: a failing `cd` stops the text. */
  errexit?: boolean;
  /** Variables assigned literally earlier in the text (for guessing dynamic command names). */
  vars: Map<string, string>;
  /** Labels of the wrappers around this text (`bash -c`, `ssh`), outermost first. */
  wrappers: string[];
  layers: Invocation[];
  /** Re-parse depth (`bash -c "bash -c ..."`). */
  depth: number;
  background: boolean;
  /**
   * The unknown program this text is only guessed to run (`notify-send "reboot now"`): what is
   * found in it asks a person, never blocks outright (see guessed-findings.ts).
   */
  guessedRunner?: string;
  /** Descriptors an `exec` left open on a network connection (`exec 3<>/dev/tcp/h/p`), by number. */
  connections?: ReadonlyMap<string, string>;
}

/** A subshell, pipeline stage or substitution: changes inside do not leak out. */
export function childScope(scope: Scope): Scope {
  return { ...scope, vars: new Map(scope.vars) };
}

export function nestedScope(scope: Scope, label: string, layers: Invocation[], cwd: string | null): Scope {
  return {
    cwd,
    ...(cwd === scope.cwd && scope.cwdFallbacks ? { cwdFallbacks: scope.cwdFallbacks } : {}),
    vars: new Map(scope.vars),
    wrappers: [...scope.wrappers, label],
    layers,
    depth: scope.depth + 1,
    background: false,
    ...(scope.guessedRunner !== undefined ? { guessedRunner: scope.guessedRunner } : {}),
    // A shell started from this one inherits its open descriptors.
    ...(scope.connections ? { connections: scope.connections } : {}),
  };
}
