// The part of the walker that command-level helpers use (kept separate to avoid import cycles).
import type { Analysis, ExecutedCommand, Invocation, UnknownFact } from './analysis-types';
import type { SyntaxNode } from './shell-parser';
import type { WordHooks } from './shell-words';
import type { Scope } from './walk-scope';

export interface WalkerApi {
  readonly analysis: Analysis;
  readonly home: string;
  /** Walks any node; returns the commands it runs at its top level (not inside substitutions). */
  visit(node: SyntaxNode, scope: Scope): ExecutedCommand[];
  wordHooks(scope: Scope): WordHooks;
  /**
   * Parses `text` as shell code run under the wrapper `label`, and walks it. A `guess` (text that
   * may not be shell at all) is walked as far as it parses, without reporting what does not.
   */
  reparse(text: string, scope: Scope, label: string, layers: Invocation[], cwd: string | null, guess?: boolean): ExecutedCommand[];
  /** Commands written after a heredoc start (`cat <<EOF | sh`, `cat <<EOF && x`). */
  continueAfterHeredoc(first: ExecutedCommand[], continuations: readonly SyntaxNode[], scope: Scope): ExecutedCommand[];
  record(command: ExecutedCommand): void;
  /** A command ran that may change variables: what was known of them is not any more. */
  commandRan(command: ExecutedCommand, scope: Scope): void;
  unknown(id: UnknownFact['id'], command: string): void;
}
