// Puts the workspace (or one path of it) back as a checkpoint holds it: the current state is
// checkpointed first, so a rollback can be undone like anything else; then files the checkpoint
// holds are written back and files it lacks are removed. What no checkpoint can hold (excluded
// folders, ignored or too large files) is left alone, so nothing is lost that could not be undone.
import { lstat, realpath, rmdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import { runShadowGit, type ShadowRepository } from './shadow-git';
import type { CheckpointOrigin, CheckpointRecord } from './checkpoint-list';
import { deadlineIn, displayName, nulList, parseNameStatus, snapshotLocked, workTreePath, type CheckpointLimits } from './snapshot';
import { withWorkspaceLock } from './workspace-lock';

export interface RollbackResult {
  /** The checkpoint of the state before the rollback (the latest one, when nothing had changed since). */
  undo: CheckpointRecord;
  restored: string[];
  removed: string[];
  /** Present now but in no checkpoint (ignored or too large): not overwritten, since that could not be undone. */
  kept: string[];
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
    // git writes each file afresh, replacing a link on the way rather than writing through it.
    if (toWrite.length) await git(['checkout', target.commit, '--pathspec-from-file=-', '--pathspec-file-nul'], nulList(toWrite));
    return { undo, restored: toWrite.map(displayName), removed: removed.map(displayName), kept: kept.map(displayName) };
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
 * Removes these files (links as links), each only when the folder holding it really is inside
 * the work tree (no link on the way), then the folders they leave empty.
 */
async function removeWithin(workTree: string, names: readonly string[]): Promise<string[]> {
  const removed: string[] = [];
  const emptied = new Set<string>();
  const workTreeBytes = Buffer.from(workTree).toString('latin1');
  for (const name of names) {
    const file = workTreePath(workTree, name);
    const parent = path.posix.dirname(`${workTreeBytes}/${name}`);
    const realParent = await realpath(Buffer.from(parent, 'latin1'), { encoding: 'buffer' }).then((real) => real.toString('latin1'), () => undefined);
    if (realParent !== parent) continue;
    const stat = await lstat(file).catch(() => null);
    if (!stat || stat.isDirectory()) continue;
    await unlink(file);
    removed.push(name);
    for (let folder = path.posix.dirname(name); folder !== '.'; folder = path.posix.dirname(folder)) emptied.add(folder);
  }
  // Deepest first; a folder still holding anything stays.
  for (const folder of [...emptied].sort((a, b) => b.length - a.length)) await rmdir(workTreePath(workTree, folder)).catch(() => undefined);
  return removed;
}

async function exists(file: Buffer): Promise<boolean> {
  return lstat(file).then(
    () => true,
    () => false,
  );
}
