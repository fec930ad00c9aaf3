// The checkpoints a shadow repository holds, oldest first. Each is a commit whose message is the
// JSON record below (written by the worker, in a folder only it and its user can write).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { runShadowGit, type ShadowRepository } from './shadow-git';
import type { HistoryRecord } from './keep-git-history';

export const CHECKPOINT_REFS = 'refs/checkpoints/';

/** Who took a checkpoint, and before what. */
export interface CheckpointOrigin {
  sessionId: string;
  /** Before a tool call: the turn (the seq of its assistant message, as `show` numbers it), the call and its tool. */
  turn?: number;
  toolCallId?: string;
  tool?: string;
  /** `rollback`: the state a rollback replaced, so that it can be undone. */
  reason: 'tool_call' | 'rollback';
}

export interface CheckpointRecord extends CheckpointOrigin {
  /** Numbers grow per workspace and are never reused. */
  id: number;
  commit: string;
  tree: string;
  time: string;
  /** Since the checkpoint before it: counts, and the first few paths. */
  changed: { added: number; modified: number; deleted: number; files: string[] };
  /** Files left out for their size. */
  leftOut?: number;
  /** The workspace's own repository (`.git`), when its history is kept. */
  git?: HistoryRecord;
  /** Repositories nested in the workspace, by folder (a git name). */
  nestedGit?: Record<string, HistoryRecord>;
}

export async function listCheckpoints(repository: ShadowRepository, timeoutMs: number): Promise<CheckpointRecord[]> {
  if (!existsSync(path.join(repository.gitDirectory, 'hermes-workspace'))) return [];
  const output = await runShadowGit(repository, ['for-each-ref', '--sort=refname', '--format=%(objectname)%00%(tree)%00%(contents:subject)', CHECKPOINT_REFS], { timeoutMs });
  return output
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .flatMap((line) => {
      const [commit, tree, subject] = line.split('\0');
      try {
        const record = JSON.parse(subject ?? '') as Omit<CheckpointRecord, 'commit' | 'tree'>;
        return typeof record.id === 'number' && commit && tree ? [{ ...record, commit, tree }] : [];
      } catch {
        return [];
      }
    });
}
