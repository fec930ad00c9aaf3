// A repository's hooks and config are what git runs or obeys for the user later, outside any
// sandbox (a pre-commit hook, core.fsmonitor). Sandboxed commands get them read-only
// (local-sandbox.ts); a repository a command creates itself is disarmed when that command ends,
// and one a background process may have created, after each later command and at the session's end.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { GIT_COMMAND_SETTINGS } from '../approval-signals/detector/rules/git';

export function hasGitRepository(workspace: string): boolean {
  return isDirectory(path.join(workspace, '.git'));
}

/**
 * The workspace repository's hooks folders and config files (its submodules' too), to bind
 * read-only. A repository without a hooks folder gets an empty one, so that none can be added.
 */
export function gitControlPaths(workspace: string): string[] {
  const gitDirectory = path.join(workspace, '.git');
  if (workspace === '/' || !isDirectory(gitDirectory)) return [];
  let modules: string[] = [];
  try {
    modules = readdirSync(path.join(gitDirectory, 'modules')).map((name) => path.join(gitDirectory, 'modules', name));
  } catch {
    // No submodules.
  }
  return [gitDirectory, ...modules].flatMap((repository) => {
    const hooks = path.join(repository, 'hooks');
    try {
      mkdirSync(hooks, { recursive: true });
    } catch {
      // Not ours to create: a command cannot create it either, then.
    }
    return [hooks, path.join(repository, 'config')].filter((controlPath) => existsSync(controlPath));
  });
}

/**
 * A repository the command just created had no read-only hooks or config while it ran: remove
 * the hooks it installed (git's own `.sample` files stay) and the settings that run programs.
 * Returns what went, for the command's output.
 */
export function disarmNewRepository(workspace: string): string[] {
  const gitDirectory = path.join(workspace, '.git');
  const removed: string[] = [];
  const hooks = path.join(gitDirectory, 'hooks');
  for (const name of safeList(hooks)) {
    if (name.endsWith('.sample')) continue;
    rmSync(path.join(hooks, name), { recursive: true, force: true });
    removed.push(`hook ${name}`);
  }
  const config = path.join(gitDirectory, 'config');
  if (!existsSync(config)) return removed;
  const listed = spawnSync('git', ['config', '--file', config, '--name-only', '--list'], { encoding: 'utf8', timeout: 5000 });
  if (listed.status !== 0) return removed;
  for (const key of new Set(listed.stdout.split('\n').filter((name) => GIT_COMMAND_SETTINGS.test(name)))) {
    spawnSync('git', ['config', '--file', config, '--unset-all', key], { timeout: 5000 });
    removed.push(`setting ${key}`);
  }
  return removed;
}

/** Left in a session's (worker-side) state folder by a background process started with no repository to guard. */
const UNGUARDED_MARKER = 'repository-unguarded';

/**
 * A background process starting while the workspace has no repository runs without read-only
 * hooks and config for as long as it lives: whatever repository appears there in the meantime is
 * treated as one it may have created. The marker names the workspace, for whoever stops the session.
 */
export function noteUnguardedStart(stateDir: string, workspace: string): void {
  if (hasGitRepository(workspace)) return;
  mkdirSync(stateDir, { recursive: true });
  writeFileSync(path.join(stateDir, UNGUARDED_MARKER), workspace);
}

/** The workspace a background process of this session started in with no repository to guard. */
export function unguardedWorkspace(stateDir: string): string | undefined {
  try {
    return readFileSync(path.join(stateDir, UNGUARDED_MARKER), 'utf8') || undefined;
  } catch {
    return undefined;
  }
}

function safeList(directory: string): string[] {
  try {
    return readdirSync(directory);
  } catch {
    return [];
  }
}

export function isDirectory(target: string): boolean {
  try {
    return statSync(target).isDirectory();
  } catch {
    return false;
  }
}
