// Where git finds a repository's control files, the way git itself does: a work tree's `.git`
// folder, or the folder a `.git` file names (`gitdir: …`), and the common folder a `commondir`
// file names (config and hooks come from there). And a bounded look for the repositories nested
// in a workspace, since git run in one of them obeys that one's config and hooks.
import { closeSync, constants, fstatSync, openSync, readdirSync, readSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { isWithin } from './path-within';

/** A `.git` file or `commondir` is one line; more is not one git would take either. */
const POINTER_MAX_BYTES = 4096;
/** What opening one folder counts for against the budget, in entries. */
const FOLDER_COST = 20;
/** Folders a nested repository is not looked for in: git's own, and installed packages. */
const NOT_SEARCHED = new Set(['.git', 'node_modules']);

/** The real folder git takes as the repository of this work tree, if there is one. */
export function gitDirectoryOf(workTree: string): string | undefined {
  const dotGit = path.join(workTree, '.git');
  try {
    if (!statSync(dotGit).isFile()) return realDirectory(dotGit);
    const pointer = /^gitdir: *(.+?)\s*$/m.exec(readSmallFile(dotGit))?.[1];
    return pointer ? realDirectory(path.resolve(workTree, pointer)) : undefined;
  } catch {
    return undefined;
  }
}

/** The folder a `commondir` file sends git to for config and hooks, if the repository has one. */
export function commonDirectoryOf(gitDirectory: string): string | undefined {
  try {
    const named = readSmallFile(path.join(gitDirectory, 'commondir')).trim();
    return named ? realDirectory(path.resolve(gitDirectory, named)) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Only a linked worktree's folder (`<repository>/worktrees/<name>`) has a `commondir`, naming
 * the repository it belongs to; anywhere else one moves config and hooks out of their guard.
 */
export function hasForeignCommonDirectory(gitDirectory: string): boolean {
  const common = commonDirectoryOf(gitDirectory);
  if (common === undefined) return false;
  const linked = path.basename(path.dirname(gitDirectory)) === 'worktrees';
  return !linked || common !== path.dirname(path.dirname(gitDirectory));
}

/**
 * The repositories of these work trees that lie inside the workspace, with their common folders
 * and their submodules' (`modules/<name>`, two levels), parents first.
 */
export function repositoryDirectories(workspace: string, workTrees: readonly string[]): string[] {
  const found = new Set<string>();
  // Only a folder named by its real path: one reached through a link (`.git/modules` made a link
  // to the home) is elsewhere, and mounting it writable would open that elsewhere to commands.
  const add = (directory: string | undefined) => {
    if (directory && directory !== workspace && isWithin(directory, workspace) && realDirectory(directory) === directory) found.add(directory);
  };
  for (const workTree of workTrees) {
    const gitDirectory = gitDirectoryOf(workTree);
    if (!gitDirectory) continue;
    for (const repository of [gitDirectory, commonDirectoryOf(gitDirectory)]) {
      if (!repository) continue;
      add(repository);
      for (const submodule of subfolders(path.join(repository, 'modules'))) {
        add(submodule);
        for (const inner of subfolders(path.join(submodule, 'modules'))) add(inner);
      }
    }
  }
  return [...found].sort((a, b) => a.length - b.length);
}

/**
 * The work trees of the workspace repository's submodules, as their folders under `modules` name
 * them (`core.worktree`): their `.git` files send the user's `git status` into those folders.
 */
export function submoduleWorkTrees(workspace: string): string[] {
  const gitDirectory = gitDirectoryOf(workspace);
  if (!gitDirectory) return [];
  const modules = subfolders(path.join(gitDirectory, 'modules'));
  return [...modules, ...modules.flatMap((module) => subfolders(path.join(module, 'modules')))].flatMap((module) => {
    let named: string | undefined;
    try {
      named = /^\s*worktree\s*=\s*(.+?)\s*$/im.exec(readSmallFile(path.join(module, 'config')))?.[1];
    } catch {
      return [];
    }
    const workTree = named ? path.resolve(module, named.replace(/^"(.*)"$/, '$1')) : undefined;
    return workTree && workTree !== workspace && isWithin(workTree, workspace) ? [workTree] : [];
  });
}

/**
 * Work trees nested in the workspace (relative paths), breadth first, reading at most `budget`
 * folder entries and keeping at most `limit`: a huge workspace costs a few milliseconds, and what
 * lies deeper is not found (`complete` is false then).
 */
export function findNestedRepositories(workspace: string, budget = 2000, limit = 32): { workTrees: string[]; complete: boolean } {
  const workTrees: string[] = [];
  let queue = [''];
  let read = 0;
  while (queue.length) {
    const next: string[] = [];
    for (const relative of queue) {
      if (read >= budget || workTrees.length >= limit) return { workTrees, complete: false };
      // Each folder costs a system call or two, whatever it holds.
      read += FOLDER_COST;
      let entries;
      try {
        entries = readdirSync(path.join(workspace, relative), { withFileTypes: true });
      } catch {
        continue;
      }
      read += entries.length;
      for (const entry of entries) {
        const child = relative ? `${relative}/${entry.name}` : entry.name;
        if (entry.name === '.git' && relative && !relative.includes('\n')) workTrees.push(relative);
        else if (entry.isDirectory() && !NOT_SEARCHED.has(entry.name)) next.push(child);
      }
    }
    queue = next;
  }
  return { workTrees: workTrees.slice(0, limit), complete: workTrees.length <= limit };
}


function subfolders(directory: string): string[] {
  try {
    return readdirSync(directory, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => path.join(directory, entry.name));
  } catch {
    return [];
  }
}

function realDirectory(target: string): string | undefined {
  try {
    const real = realpathSync(target);
    return statSync(real).isDirectory() ? real : undefined;
  } catch {
    return undefined;
  }
}

/** Never waits on a FIFO, never reads more than a pointer's worth. */
function readSmallFile(file: string): string {
  const descriptor = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if (!fstatSync(descriptor).isFile()) return '';
    const buffer = Buffer.alloc(POINTER_MAX_BYTES);
    return buffer.subarray(0, readSync(descriptor, buffer, 0, POINTER_MAX_BYTES, 0)).toString('utf8');
  } finally {
    closeSync(descriptor);
  }
}
