// What every rule module receives and returns.
import type { Backend } from '../../../environments/terminal-environment';
import type { Analysis, ExecutedCommand } from '../analysis-types';
import type { RuleHit } from '../rule-catalog';

/** The classify context with every path normalised (absolute, no trailing slash). */
export interface RuleContext {
  backend: Backend;
  cwd: string;
  workspaceRoot: string;
  home: string;
  protectedFiles: string[];
}

export interface RuleInput {
  analysis: Analysis;
  context: RuleContext;
}

export type Rule = (input: RuleInput) => RuleHit[];

/** Commands that really run (re-parse hosts included: some rules are about them). */
export function commandsNamed(input: RuleInput, ...programs: string[]): ExecutedCommand[] {
  return input.analysis.commands.filter((command) => command.program !== null && programs.includes(command.program));
}
