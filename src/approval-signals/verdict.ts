// What the dangerous-command detector says about a command. Pure types (JSON only): the verdict
// crosses the workflow boundary, and the approval policy runs on it inside workflow code.
import type { Backend } from '../environments/terminal-environment';

/**
 * - `hardline`: never runs, whatever the mode or backend;
 * - `dangerous`: needs approval;
 * - `low_risk`: matches a rule but is contained (e.g. `rm -rf node_modules` inside the workspace);
 * - `safe`: fully parsed, no rule matched;
 * - `unknown`: could not be understood (parse error, text too long): never safe. A command whose
 *   name is built at run time hides the program and is rated at least `dangerous` (rule N40).
 */
export type RiskTier = 'hardline' | 'dangerous' | 'low_risk' | 'safe' | 'unknown';

export interface MatchedRule {
  /** Stable rule id, e.g. `H01`, `D02`, `SELF01`. */
  id: string;
  /** Human description; shown in prompts. */
  description: string;
  tier: 'hardline' | 'dangerous' | 'low_risk' | 'unknown';
  /**
   * Canonical approval key: the rule id plus the normalised command it matched (flags sorted,
   * targets normalised), so approving `rm -rf build` for the session never approves `rm -rf /`.
   */
  key: string;
  /** The (sub)command text the rule matched. */
  command: string;
  /**
   * The rule was read from the path text alone (a build folder's name): it holds only if each of
   * these absolute paths leads where it reads, through no symbolic link, on the session's backend.
   * The gate checks them; where it cannot, the delete counts as the dangerous rule D02.
   */
  linkFreePaths?: string[];
  /**
   * What the command does depends on input its text does not fix (arguments from `xargs`, a
   * variable, a substitution, piped input, a folder `cd` reaches at run time): an approval of it
   * covers this call only.
   */
  once?: true;
  /**
   * The absolute paths a delete removes (or empties), as written: the gate looks where each
   * really leads, so an approval of a folder's delete never covers a link of the same name.
   */
  targets?: string[];
  /**
   * The rule is hardline, but was found only in text an unknown program is guessed to run, so it
   * asks instead of blocking (a message as often as a command). Nothing lifts the ask: it stands
   * with approvals off and in a container too, where a hardline rule would still have blocked.
   */
  guessedHardline?: true;
}

/** One executed command found in the text, after unwrapping `sudo`, `env`, `xargs`, ... */
export interface ParsedCommand {
  /** Resolved program name (quotes removed, basename), or `null` when dynamic. */
  name: string | null;
  /** Arguments after quote removal (literal text; unexpanded parts kept as written). */
  args: string[];
  /** Wrappers peeled off on the way, outermost first (`sudo`, `env`, `timeout`, ...). */
  wrappers: string[];
  /** Source text of this command. */
  text: string;
}

export interface CommandVerdict {
  tier: RiskTier;
  /** Every rule that matched, most severe first. */
  rules: MatchedRule[];
  commands: ParsedCommand[];
  /** More than one command, or several lines: never turned into an "always" rule. */
  compound: boolean;
  /** Why the text could not be fully understood, when tier is `unknown`. */
  parseError?: string;
}

export interface ClassifyContext {
  backend: Backend;
  /** Directory the command runs in. */
  cwd: string;
  /** Root of the session's workspace: deletes inside it are contained. */
  workspaceRoot: string;
  /** The user's home directory (for `~`, `$HOME` and credential paths). */
  home: string;
  /** This project's own config and allowlist files: writing them is dangerous. */
  protectedFiles: string[];
}
