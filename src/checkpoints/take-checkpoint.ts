// A checkpoint of a workspace, taken under its lock (one snapshot at a time per workspace).
import type { ShadowRepository } from './shadow-git';
import type { CheckpointOrigin } from './checkpoint-list';
import { deadlineIn, snapshotLocked, type CheckpointLimits, type SnapshotOutcome } from './snapshot';
import { LockTimeout, withWorkspaceLock } from './workspace-lock';

export async function takeCheckpoint(repository: ShadowRepository, origin: CheckpointOrigin, limits: CheckpointLimits): Promise<SnapshotOutcome> {
  const started = Date.now();
  const deadline = deadlineIn(limits.timeoutMs);
  try {
    // A holder that died long ago (several timeouts) left its lock behind.
    return await withWorkspaceLock(repository.gitDirectory, { waitMs: limits.timeoutMs, staleMs: limits.timeoutMs * 4 }, () => snapshotLocked(repository, origin, limits, deadline));
  } catch (error) {
    if (error instanceof LockTimeout) return { kind: 'skipped', reason: error.message, durationMs: Date.now() - started };
    throw error;
  }
}
