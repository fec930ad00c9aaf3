// The one verdict for a shell command, used by the approval gate and by `hermes-temporal
// check-command`: the detector's classification plus the user's `approvals.deny` rules.
// Pure once the shell grammar is loaded (`loadCommandClassifier()`).
import os from 'node:os';
import path from 'node:path';
import type { LoadedConfig } from '../config/load';
import type { Backend } from '../environments/terminal-environment';
import { runtimeTemporaryFolders, SAVED_RESULTS_FOLDER } from '../environments/runtime-temp-folders';
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

export function userConfigFile(config: Pick<LoadedConfig, 'home'>): string {
  return path.join(config.home, 'config.yaml');
}

/**
 * This worker's files whose reading reveals secrets and whose change changes the policy: the whole
 * hermes home (user config with the model key and webhook secret, allowlist, approver keys), and
 * the stores wherever they are configured.
 */
export function hermesSecretFiles(config: LoadedConfig): string[] {
  const withJournals = (file: string) => [file, `${file}-wal`, `${file}-shm`, `${file}-journal`];
  return [
    `${config.home}/`,
    userConfigFile(config),
    `${path.join(config.home, 'approver')}/`,
    ...withJournals(config.store.path),
    ...withJournals(config.temporal.dev_server.db_file ?? path.join(config.home, 'temporal.db')),
    // Every session's command output and process files, MCP media and the sandbox's seccomp
    // filter on a local worker (its saved output is the session's own to read: protected below).
    ...runtimeTemporaryFolders()
      .filter((folder) => path.basename(folder) !== SAVED_RESULTS_FOLDER)
      .map((folder) => `${folder}/`),
  ];
}

/**
 * Files whose change changes the approval policy or another session: the secret files, every
 * session's saved output, the project configs. `secretFiles`: hermesSecretFiles, when already listed.
 */
export function hermesProtectedFiles(config: LoadedConfig, workspaceRoot: string, secretFiles = hermesSecretFiles(config)): string[] {
  return [
    ...secretFiles,
    `${path.join(os.tmpdir(), SAVED_RESULTS_FOLDER)}/`,
    path.join(workspaceRoot, 'hermes-temporal.yaml'),
    path.join(process.cwd(), 'hermes-temporal.yaml'),
  ];
}
