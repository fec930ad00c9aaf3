// The walker's view of the shell state while it moves through the text: working directory
// (followed through `cd`), literal variables, the wrappers around the current text, nesting.
import type { Invocation } from './analysis-types';

export interface Scope {
  /** Working directory, `null` once a `cd` went somewhere unknown. */
  cwd: string | null;
  /** Variables assigned literally earlier in the text (for guessing dynamic command names). */
  vars: Map<string, string>;
  /** Labels of the wrappers around this text (`bash -c`, `ssh`), outermost first. */
  wrappers: string[];
  layers: Invocation[];
  /** Re-parse depth (`bash -c "bash -c ..."`). */
  depth: number;
  background: boolean;
}

/** A subshell, pipeline stage or substitution: changes inside do not leak out. */
export function childScope(scope: Scope): Scope {
  return { ...scope, vars: new Map(scope.vars) };
}

export function nestedScope(scope: Scope, label: string, layers: Invocation[], cwd: string | null): Scope {
  return {
    cwd,
    vars: new Map(scope.vars),
    wrappers: [...scope.wrappers, label],
    layers,
    depth: scope.depth + 1,
    background: false,
  };
}
