// Puts the workspace (or one path of it) back as a checkpoint holds it: the current state is
// checkpointed first, so a rollback can be undone like anything else; then files the checkpoint
// lacks are removed and files it holds are written back, both through folders opened without
// following links. What no checkpoint can hold (excluded folders, ignored or too large files) is
// left alone, so nothing is lost that could not be undone.
import { lstatSync, rmdirSync, unlinkSync } from 'node:fs';
import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { runShadowGit, type ShadowRepository } from './shadow-git';
import type { CheckpointOrigin, CheckpointRecord } from './checkpoint-list';
import { deadlineIn, displayName, nulList, parseNameStatus, snapshotLocked, workTreePath, type CheckpointLimits } from './snapshot';
import { withWorkspaceLock } from './workspace-lock';
import { inFolderBeneath } from './folder-chain';
import { writeBackWithin } from './write-back';
import { restoreHistories, type RestoredHistory } from './restore-git-history';

export interface RollbackResult {
  /** The checkpoint of the state before the rollback (the latest one, when nothing had changed since). */
  undo: CheckpointRecord;
  restored: string[];
  removed: string[];
  /** Present now but in no checkpoint (ignored or too large): not overwritten, since that could not be undone. */
  kept: string[];
  /** Not written back: a folder on the way is a link or a file now, or a folder holds the name (a script still running?). */
  skipped: string[];
  /** The history of the workspace's repositories put back (a whole-workspace rollback, or one of `.git`), those the checkpoint kept. */
  histories: RestoredHistory[];
}

export class RollbackRefused extends Error {
  override readonly name = 'RollbackRefused';
}

/** `scope`: a path relative to the workspace (or absolute, inside it); absent: the whole workspace. */
export async function rollbackWorkspace(
  repository: ShadowRepository,
  target: CheckpointRecord,
  options: { scope?: string; sessionId: string; limits: CheckpointLimits },
): Promise<RollbackResult> {
  const scope = options.scope === undefined ? undefined : scopeWithin(repository.workTree, options.scope);
  const deadline = deadlineIn(options.limits.timeoutMs);
  return withWorkspaceLock(repository.gitDirectory, { waitMs: options.limits.timeoutMs, staleMs: options.limits.timeoutMs * 4 }, async () => {
    const origin: CheckpointOrigin = { sessionId: options.sessionId, reason: 'rollback' };
    const before = await snapshotLocked(repository, origin, options.limits, deadline);
    if (before.kind === 'skipped') throw new RollbackRefused(`the current state cannot be checkpointed first (${before.reason}), so the rollback could not be undone`);
    const undo = before.kind === 'taken' ? before.checkpoint : before.latest;
    const git = (args: string[], input?: Buffer) => runShadowGit(repository, args, { timeoutMs: deadline.remainingMs(), ...(input ? { input } : {}) });
    const pathspec = scope === undefined ? [] : ['--', scope];
    const changes = parseNameStatus(await git(['diff-tree', '-r', '-z', '--no-renames', '--name-status', before.tree, target.tree, ...pathspec]));
    const toRemove = changes.filter((entry) => entry.status === 'D').map((entry) => entry.path);
    const wanted = changes.filter((entry) => entry.status !== 'D').map((entry) => entry.path);
    // Removed first: a file may give way to a folder of the same name, or the other way round.
    const removed = await removeWithin(repository.workTree, toRemove);
    if (removed.length) await git(['update-index', '--force-remove', '-z', '--stdin'], nulList(removed));
    const added = new Set(changes.filter((entry) => entry.status === 'A').map((entry) => entry.path));
    const kept: string[] = [];
    const toWrite: string[] = [];
    for (const name of wanted) {
      // In the checkpoint, not in the current state, yet there: a file no checkpoint holds.
      if (added.has(name) && (await exists(workTreePath(repository.workTree, name)))) kept.push(name);
      else toWrite.push(name);
    }
    const { written, skipped } = toWrite.length ? await writeBackWithin(repository.workTree, target.tree, toWrite, git) : { written: [], skipped: [] };
    const histories = scope === undefined || scope === '.git' ? await restoreHistories(repository, target, deadline) : [];
    return { undo, restored: written.map(displayName), removed: removed.map(displayName), kept: kept.map(displayName), skipped: skipped.map(displayName), histories };
  });
}

/** `scope` as a git name relative to the work tree; refuses one outside it. */
function scopeWithin(workTree: string, scope: string): string {
  const absolute = path.resolve(workTree, scope);
  const relative = path.relative(workTree, absolute);
  if (relative.startsWith('..') || path.isAbsolute(relative)) throw new RollbackRefused(`${scope} is not inside the workspace ${workTree}`);
  return relative === '' ? '.' : relative.split(path.sep).join('/');
}

/**
 * Removes these files (links as links) and then the folders they leave empty, each only through
 * folders of the work tree opened one inside another without following a link: a folder swapped
 * for a link at any moment (a script of the model's still running) leads the removal nowhere.
 */
async function removeWithin(workTree: string, names: readonly string[]): Promise<string[]> {
  const removed: string[] = [];
  const emptied = new Set<string>();
  for (const name of names) {
    const gone = inFolderBeneath(workTree, name, (file) => {
      const stat = lstatSync(file, { throwIfNoEntry: false });
      if (!stat || stat.isDirectory()) return false;
      try {
        unlinkSync(file);
        return true;
      } catch (error) {
        // Made a folder, or gone, since the look: it is no file of the checkpoint's to remove.
        if (['EISDIR', 'ENOENT', 'EPERM'].includes((error as NodeJS.ErrnoException).code ?? '')) return false;
        throw error;
      }
    });
    if (!gone) continue;
    removed.push(name);
    for (let folder = path.posix.dirname(name); folder !== '.'; folder = path.posix.dirname(folder)) emptied.add(folder);
  }
  // Deepest first; a folder still holding anything stays.
  for (const folder of [...emptied].sort((a, b) => b.length - a.length)) {
    inFolderBeneath(workTree, folder, (named) => {
      try {
        rmdirSync(named);
      } catch {
        // Not empty, or no longer a folder.
      }
    });
  }
  return removed;
}

async function exists(file: Buffer): Promise<boolean> {
  return lstat(file).then(
    () => true,
    () => false,
  );
}
