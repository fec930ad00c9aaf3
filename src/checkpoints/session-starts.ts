// The checkpoints pruning keeps beyond the newest `keep`: where each session tree (a session and
// its sub-agents, `<id>-sa<n>`) started. A model that makes `keep` changed turns (its own or its
// sub-agents') would otherwise push out every copy of what it found, after deleting it unasked.
import type { CheckpointOrigin, CheckpointRecord } from './checkpoint-list';

const SUB_AGENT_SUFFIXES = /(?:-sa\d+)+$/;

/** The session that started the tree `sessionId` belongs to (the model starts sub-agents, never trees). */
export function sessionTreeOf(sessionId: string): string {
  return sessionId.replace(SUB_AGENT_SUFFIXES, '');
}

/** Whether the tree of `origin` has a checkpoint yet: its first one is where it started. */
export function treeHasStart(checkpoints: readonly CheckpointRecord[], origin: CheckpointOrigin): boolean {
  const tree = sessionTreeOf(origin.sessionId);
  return checkpoints.some((checkpoint) => sessionTreeOf(checkpoint.sessionId) === tree);
}

/** Ids of the first checkpoint of each of the newest `trees` session trees (checkpoints oldest first). */
export function startingPoints(checkpoints: readonly Pick<CheckpointRecord, 'id' | 'sessionId'>[], trees: number): Set<number> {
  const firstOf = new Map<string, number>();
  for (const checkpoint of checkpoints) {
    const tree = sessionTreeOf(checkpoint.sessionId);
    if (!firstOf.has(tree)) firstOf.set(tree, checkpoint.id);
  }
  return new Set([...firstOf.values()].sort((a, b) => a - b).slice(-trees));
}
