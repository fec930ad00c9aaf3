// The one verdict for a shell command, used by the approval gate and by `hermes-temporal
// check-command`: the detector's classification plus the user's `approvals.deny` rules.
// Pure once the shell grammar is loaded (`loadCommandClassifier()`).
import path from 'node:path';
import type { Backend } from '../environments/terminal-environment';
import { classifyCommand } from './classify-command';
import { matchDenyRule } from './deny-rules';
import type { CommandVerdict } from './verdict';

export interface CommandAssessmentOptions {
  backend: Backend;
  /** Directory the command runs in. */
  cwd: string;
  /** Root of the session's workspace. */
  workspaceRoot: string;
  /** The user's home directory. */
  home: string;
  /** This runtime's own config files (writes need approval; their folder is a secret to read). */
  protectedFiles: string[];
  /** `approvals.deny` globs from the loaded config. */
  deny: string[];
}

export interface CommandTextAssessment {
  verdict: CommandVerdict;
  /** The `approvals.deny` glob that matched: the command is refused whatever the verdict. */
  deniedBy?: string;
}

export function assessCommandText(command: string, options: CommandAssessmentOptions): CommandTextAssessment {
  const verdict = classifyCommand(command, {
    backend: options.backend,
    cwd: options.cwd,
    workspaceRoot: options.workspaceRoot,
    home: options.home,
    protectedFiles: options.protectedFiles,
  });
  const deniedBy = matchDenyRule(command, verdict, options.deny);
  return deniedBy === undefined ? { verdict } : { verdict, deniedBy };
}

/** The runtime's protected files: the user config in its home and the project config of each directory given. */
export function runtimeProtectedFiles(runtimeHome: string, projectConfigFile: string, projectDirectories: readonly string[]): string[] {
  return [...new Set([path.join(runtimeHome, 'config.yaml'), ...projectDirectories.map((directory) => path.join(directory, projectConfigFile))])];
}
