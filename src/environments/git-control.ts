// A repository's hooks and config are what git runs or obeys for the user later, outside any
// sandbox (a pre-commit hook, core.fsmonitor). In the sandbox each repository folder of the
// workspace (its own, its submodules', the nested ones found when the session started) is a mount
// point, which cannot be renamed or removed, with those files read-only (local-sandbox.ts). What a
// command can still do is checked, with a few stat calls, when it ends: a repository it created
// or registered as a submodule is disarmed, and a file that sends git elsewhere for them goes.
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, realpathSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GIT_COMMAND_SETTINGS } from '../approval-signals/detector/rules/git';
import { inRealFolder, nameForChildProcess, removeBeneath, withinFolderBeneath } from './folder-beneath';
import { isWithin, realOrSelf } from './path-within';
import { trustedProgram, trustedSearchPath } from './trusted-programs';
import type { NestedRepositories } from './nested-repositories';
import { commonDirectoryOf, findNestedRepositories, gitDirectoryOf, hasForeignCommonDirectory, repositoryDirectories, submoduleWorkTrees } from './git-repositories';

export { noteUnguardedStart, unguardedWorkspace } from './git-unguarded';

/**
 * What git runs or takes its config and hooks from in a repository folder. Not `info`: git writes
 * there itself (`git gc`), and its attributes can do no more than the work tree's `.gitattributes`.
 */
export const CONTROL_ENTRIES = ['hooks', 'config', 'config.worktree', 'worktrees', 'commondir'];
/** A new gitlink beyond these many is not looked at (an index holds few). */
const MAX_GITLINKS = 256;

export function hasGitRepository(workspace: string): boolean {
  return gitDirectoryOf(workspace) !== undefined;
}

/**
 * bwrap arguments guarding the repositories of these work trees inside the workspace: each
 * repository folder bound onto itself, so git finds it where it looks, then what git obeys in it
 * read-only, a `.git` file included. A repository without a hooks folder gets an empty one, so that
 * none can be added.
 */
export function gitGuardArguments(workspace: string, workTrees: readonly string[]): string[] {
  if (workspace === '/') return [];
  const args: string[] = [];
  for (const workTree of workTrees) {
    const dotGit = path.join(workTree, '.git');
    // A `.git` file is all pointer: git never rewrites it in the course of work.
    if (isFile(dotGit) && isWithin(dotGit, workspace) && realOrSelf(dotGit) === dotGit) args.push('--ro-bind', dotGit, dotGit);
  }
  const directories = repositoryDirectories(workspace, workTrees);
  for (const directory of directories) args.push('--bind', directory, directory);
  for (const directory of directories) {
    try {
      mkdirSync(path.join(directory, 'hooks'), { recursive: true });
    } catch {
      // Not ours to create: a command cannot create it either, then.
    }
    for (const entry of CONTROL_ENTRIES) {
      const controlPath = boundControlPath(path.join(directory, entry), workspace);
      if (controlPath) args.push('--ro-bind', controlPath, controlPath);
    }
  }
  const obeyed = gitObeyedPathsIn(workspace, workTrees);
  // Files first: a folder mounted later covers what it holds, and never blocks a mount point.
  for (const file of obeyed.files) {
    // A file not there yet becomes an empty one, which git reads as empty and cannot run.
    if (isFile(file)) args.push('--ro-bind', file, file);
    else if (canCreate(file)) args.push('--ro-bind', '/dev/null', file);
  }
  for (const hooks of obeyed.folders) {
    // Likewise a folder: an empty, read-only mount point, where none can be added.
    if (isDirectory(hooks)) args.push('--ro-bind', hooks, hooks);
    else if (canCreate(hooks)) args.push('--tmpfs', hooks, '--remount-ro', hooks);
  }
  return args;
}

/**
 * Where a control entry is made read-only: itself, or where the link it is leads, when that is in
 * the workspace (what git follows); nothing when it is missing or leads out of the workspace,
 * where commands cannot write and where a mount would show them what lies there.
 */
function boundControlPath(controlPath: string, workspace: string): string | undefined {
  let real: string;
  try {
    real = realpathSync(controlPath);
  } catch {
    return undefined;
  }
  return isWithin(real, workspace) && !isWithin(workspace, real) ? real : undefined;
}

/** What git reads or runs from the workspace because a config setting names it there. */
export interface GitObeyedPaths {
  /** The folders `core.hooksPath` names. */
  folders: string[];
  /** Config files included (`include.path`, `includeIf.*.path`) and programs command settings name. */
  files: string[];
}

/**
 * The paths inside the workspace that the work trees' effective config (the repository's, the
 * user's, the system's) makes git read or run, outside any sandbox, when the user next commits or
 * asks for the status: the folder `core.hooksPath` names (husky's `.husky/_`, a `.githooks`), a
 * config file it includes (`include.path = ../.gitconfig`), a program a command setting runs
 * (`alias.x = !./scripts/x.sh`, `diff.external`, a filter). They lie in the work tree, writable,
 * and git may ignore them, so nothing would show one changed. Read with git itself, as the user's
 * git reads it; reading config runs nothing.
 */
export function gitObeyedPathsIn(workspace: string, workTrees: readonly string[]): GitObeyedPaths {
  const folders = new Set<string>();
  const files = new Set<string>();
  const keep = (target: string, into: Set<string>) => {
    const real = realTarget(target);
    // The workspace itself (or a folder holding it) cannot be read-only: commands write there.
    if (isWithin(real, workspace) && !isWithin(workspace, real)) into.add(real);
  };
  for (const workTree of workTrees) {
    const gitDirectory = gitDirectoryOf(workTree);
    if (!gitDirectory) continue;
    const listed = runGit(['--git-dir', gitDirectory, 'config', '--list', '--show-origin', '-z'], workspace, { cwd: workTree });
    if (listed?.status !== 0) continue;
    for (const { origin, key, value } of configEntries(listed.stdout)) {
      const expanded = value.replace(/^~(?=\/|$)/, os.homedir());
      if (key === 'core.hookspath') keep(path.resolve(workTree, expanded), folders);
      else if (key === 'include.path' || /^includeif\..*\.path$/.test(key)) {
        // Relative to the file that includes it; one from elsewhere (the command line) is not a file's.
        if (origin) keep(path.resolve(path.dirname(origin), expanded), files);
      } else if (GIT_COMMAND_SETTINGS.test(key)) {
        // Programs are run from the top of the work tree; a word with a slash may name one there.
        for (const word of value.replace(/^!/, '').split(/\s+/)) {
          const program = word.replace(/^~(?=\/|$)/, os.homedir());
          // Not an option, an assignment or a URL; and only one that exists (none is made for it).
          if (word.includes('/') && !/^-|=|^[a-z][a-z0-9+.-]*:/i.test(word) && isFile(path.resolve(workTree, program))) keep(path.resolve(workTree, program), files);
        }
      }
    }
  }
  return { folders: [...folders], files: [...files] };
}

/** `git config --list --show-origin -z`: `origin NUL key LF value NUL`, per entry. */
function configEntries(output: string): { origin: string | undefined; key: string; value: string }[] {
  const fields = output.split('\0');
  const entries: { origin: string | undefined; key: string; value: string }[] = [];
  for (let index = 0; index + 1 < fields.length; index += 2) {
    const origin = fields[index]!;
    const entry = fields[index + 1]!;
    const newline = entry.indexOf('\n');
    const key = (newline === -1 ? entry : entry.slice(0, newline)).toLowerCase();
    entries.push({ origin: origin.startsWith('file:') ? origin.slice('file:'.length) : undefined, key, value: newline === -1 ? '' : entry.slice(newline + 1) });
  }
  return entries;
}

/** Nothing is there yet and its nearest existing parent is a folder (bwrap could not make it otherwise, and no command could run). */
function canCreate(target: string): boolean {
  if (existsSync(target)) return false;
  let parent = path.dirname(target);
  while (!existsSync(parent) && path.dirname(parent) !== parent) parent = path.dirname(parent);
  return isDirectory(parent);
}

/** Where a path really leads: its nearest existing folder resolved, the rest as named. */
function realTarget(target: string): string {
  const rest: string[] = [];
  for (let current = target; ; current = path.dirname(current)) {
    try {
      return path.join(realpathSync(current), ...rest);
    } catch {
      if (path.dirname(current) === current) return target;
      rest.unshift(path.basename(current));
    }
  }
}

/** The workspace, the nested work trees recorded for it (relative) that stay inside it, and its submodules'. */
export function workTreesOf(workspace: string, nested: readonly string[] = []): string[] {
  const recorded = nested.map((relative) => path.join(workspace, relative)).filter((workTree) => workTree !== workspace && isWithin(workTree, workspace));
  return [...new Set([workspace, ...recorded, ...submoduleWorkTrees(workspace)])];
}

/** What a command found, to compare with what it leaves. */
export interface RepositoryGuard {
  workspace: string;
  workTrees: string[];
  /** The workspace's `.git` (device and inode): another one is a repository the command made. */
  dotGit: string | undefined;
  guarded: string[];
  indexes: string[];
  worktreeConfigs: boolean[];
}

export function guardRepositories(workspace: string, workTrees: readonly string[]): RepositoryGuard {
  const guarded = repositoryDirectories(workspace, workTrees);
  return {
    workspace,
    workTrees: [...workTrees],
    dotGit: identity(path.join(workspace, '.git')),
    guarded,
    indexes: workTrees.map(indexIdentity),
    worktreeConfigs: guarded.map((directory) => existsSync(path.join(directory, 'config.worktree'))),
  };
}

/**
 * After the command: disarms a repository the workspace did not have (or any, when a background
 * process may have made it: `unguarded`), removes a `commondir` that sends git away from a guarded
 * repository's config and hooks, strips a new `config.worktree`, and disarms every repository the
 * index newly registers as a submodule that is not guarded. Returns what went.
 */
export function checkRepositories(guard: RepositoryGuard, unguarded = false): string[] {
  const { workspace } = guard;
  const guarded = new Set(guard.guarded);
  const removed: string[] = [];
  const root = gitDirectoryOf(workspace);
  const directories = root && !guarded.has(root) ? [...guard.guarded, root] : guard.guarded;
  directories.forEach((directory, position) => {
    // Through the folders as they were opened: a link swapped in above it since leads elsewhere.
    if (hasForeignCommonDirectory(directory) && inRealFolder(workspace, directory, (folder) => removeBeneath(folder, 'commondir'))) {
      removed.push(`${labelOf(workspace, directory)}file commondir`);
    }
    // A new repository's goes with the rest of it, below.
    const worktreeConfig = path.join(directory, 'config.worktree');
    if (!(guard.worktreeConfigs[position] ?? true) && existsSync(worktreeConfig)) removed.push(...disarmConfig(worktreeConfig, labelOf(workspace, directory), workspace));
  });
  if (root && (unguarded || identity(path.join(workspace, '.git')) !== guard.dotGit)) removed.push(...disarmRepository(workspace, root, unguarded ? new Set() : guarded));
  guard.workTrees.forEach((workTree, position) => {
    const gitDirectory = gitDirectoryOf(workTree);
    if (!gitDirectory || indexIdentity(workTree) === guard.indexes[position]) return;
    for (const link of gitlinksOf(gitDirectory, workTree)) {
      const linked = gitDirectoryOf(path.join(workTree, link));
      if (linked) removed.push(...disarmRepository(workspace, linked, guarded));
    }
  });
  return removed;
}

/**
 * At a session's end: the nested repositories that were not there when it started are disarmed.
 * One the look at the start did not reach counts as new only if its `.git` was born since (where
 * the file system records births); otherwise it could be the user's own.
 */
export function disarmNewNestedRepositories(workspace: string, recorded: NestedRepositories): string[] {
  // A repository folder born during the session (one a script made in `.git/modules`, which is
  // guarded only from the next command on) had nothing read-only while it was planted.
  const guarded = new Set(repositoryDirectories(workspace, workTreesOf(workspace, recorded.workTrees)).filter((directory) => !bornSince(directory, recorded.since)));
  const known = new Set(recorded.workTrees);
  return findNestedRepositories(workspace, 20_000, 1000)
    .workTrees.filter((relative) => !known.has(relative) && (recorded.complete || bornSince(path.join(workspace, relative, '.git'), recorded.since)))
    .flatMap((relative) => {
      const gitDirectory = gitDirectoryOf(path.join(workspace, relative));
      return gitDirectory ? disarmRepository(workspace, gitDirectory, guarded) : [];
    });
}

/**
 * A repository that had no read-only hooks or config while commands ran: the hooks it has go
 * (git's own `.sample` files stay), and the settings that run programs, in it and in the common
 * folder it names. Guarded folders and those outside the workspace (read-only there) are left.
 */
export function disarmRepository(workspace: string, gitDirectory: string, guarded: ReadonlySet<string>): string[] {
  const removed: string[] = [];
  for (const directory of new Set([gitDirectory, commonDirectoryOf(gitDirectory)])) {
    if (!directory || guarded.has(directory) || !isWithin(directory, workspace) || directory === workspace) continue;
    const label = labelOf(workspace, directory);
    removed.push(...disarmHooks(workspace, path.join(directory, 'hooks'), label));
    for (const file of ['config', 'config.worktree']) removed.push(...disarmConfig(path.join(directory, file), label, workspace));
  }
  return removed;
}

/**
 * The hooks in a real hooks folder go (git's own `.sample` files stay). One that is a link (to
 * ~/.ssh, or to a folder of the work tree) is never followed, by the listing or the removal: the
 * link itself goes.
 */
function disarmHooks(workspace: string, hooks: string, label: string): string[] {
  const inFolder = inRealFolder(workspace, hooks, (folder) =>
    safeList(folder)
      .filter((name) => !name.endsWith('.sample') && removeBeneath(folder, name))
      .map((name) => `${label}hook ${name}`),
  );
  if (inFolder) return inFolder;
  const link = withinFolderBeneath(workspace, hooks, (named) => {
    if (!lstatSync(named, { throwIfNoEntry: false })?.isSymbolicLink()) return false;
    rmSync(named, { force: true });
    return true;
  });
  return link ? [`${label}hooks (a link)`] : [];
}

/**
 * Unsets the settings that run programs. git edits the file by its name, so it gets the name
 * through the folder the worker opened without following links (a `.git/modules` swapped for a
 * link to the home must not have git edit ~/.config/git/config); a config that is itself a link
 * is not followed either: the link goes.
 */
function disarmConfig(config: string, label: string, workspace: string): string[] {
  const removed = withinFolderBeneath(workspace, config, (named) => {
    const info = lstatSync(named, { throwIfNoEntry: false });
    if (info?.isSymbolicLink()) {
      rmSync(named, { force: true });
      return [`${label}${path.basename(config)} (a link)`];
    }
    if (!info?.isFile()) return [];
    const forGit = nameForChildProcess(named);
    const listed = runGit(['config', '--file', forGit, '--name-only', '--list'], workspace);
    if (listed?.status !== 0) return [];
    const keys = new Set(listed.stdout.split('\n').filter((name) => GIT_COMMAND_SETTINGS.test(name)));
    for (const key of keys) runGit(['config', '--file', forGit, '--unset-all', key], workspace);
    return [...keys].map((key) => `${label}setting ${key}`);
  });
  return removed ?? [];
}

/** Paths the index records as submodules (mode 160000). Reading the index runs nothing. */
function gitlinksOf(gitDirectory: string, workTree: string): string[] {
  const listed = runGit(['--git-dir', gitDirectory, '-c', 'core.fsmonitor=false', 'ls-files', '--stage', '-z'], workTree, { cwd: workTree, maxBuffer: 256 * 1024 * 1024 });
  if (listed?.status !== 0) return [];
  return listed.stdout
    .split('\0')
    .filter((line) => line.startsWith('160000 '))
    .slice(0, MAX_GITLINKS)
    .map((line) => line.slice(line.indexOf('\t') + 1));
}

/**
 * git from the trusted PATH (never one planted in the workspace), with that PATH. Undefined where
 * there is no git: then nobody's git will obey the repository either.
 */
function runGit(args: string[], workspace: string, options: SpawnSyncOptions = {}): { status: number | null; stdout: string } | undefined {
  let git: string;
  try {
    git = trustedProgram('git', { outside: [workspace] });
  } catch {
    return undefined;
  }
  const env = { ...process.env, PATH: trustedSearchPath({ outside: [workspace] }) };
  const result = spawnSync(git, args, { timeout: 5000, ...options, env, encoding: 'utf8' });
  return { status: result.status, stdout: String(result.stdout ?? '') };
}

/** Names a repository other than the workspace's own in what the command output says was removed. */
function labelOf(workspace: string, directory: string): string {
  return directory === path.join(workspace, '.git') ? '' : `${path.relative(workspace, directory)}: `;
}

function identity(target: string): string | undefined {
  try {
    const stats = lstatSync(target);
    return `${stats.dev}:${stats.ino}`;
  } catch {
    return undefined;
  }
}

function indexIdentity(workTree: string): string {
  const gitDirectory = gitDirectoryOf(workTree);
  if (!gitDirectory) return '';
  try {
    const stats = statSync(path.join(gitDirectory, 'index'));
    return `${gitDirectory}:${stats.ino}:${stats.size}:${stats.mtimeMs}`;
  } catch {
    return gitDirectory;
  }
}

function bornSince(target: string, since: number): boolean {
  try {
    const { birthtimeMs } = lstatSync(target);
    return birthtimeMs > 0 && birthtimeMs >= since;
  } catch {
    return false;
  }
}

function isFile(target: string): boolean {
  try {
    return lstatSync(target).isFile();
  } catch {
    return false;
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
