// The worker's side: before the first call of a turn that may change the workspace, a checkpoint
// of it. The calls of one turn share that one snapshot (those running side by side wait for it);
// a failure or a skip is logged and never stops the call: the checkpoint is a safety net.
import os from 'node:os';
import type { Logger } from '../logging';
import { isWithin, realOrSelf } from '../environments/path-within';
import { shadowRepositoryFor } from './shadow-repository';
import type { CheckpointLimits, SnapshotOutcome } from './snapshot';
import { takeCheckpoint } from './take-checkpoint';

export interface CheckpointSettings extends CheckpointLimits {
  enabled: boolean;
  /** The hermes home: checkpoints live in `<home>/checkpoints/`. */
  home: string;
}

export interface ChangingCall {
  sessionId: string;
  /** The turn (its assistant message's seq). */
  turn: number;
  toolCallId: string;
  tool: string;
  /** The session's workspace folder on this machine. */
  workspace: string;
}

/** Sessions remembered (their last checkpointed turn); beyond it the oldest are forgotten (a second snapshot of a turn is only a cheap no-op). */
const REMEMBERED_SESSIONS = 1000;

export type BeforeChange = (call: ChangingCall) => Promise<SnapshotOutcome | undefined>;

export function createTurnCheckpoints(settings: CheckpointSettings, logger: Logger): BeforeChange {
  const turns = new Map<string, { turn: number; snapshot: Promise<SnapshotOutcome | undefined> }>();
  return (call) => {
    if (!settings.enabled) return Promise.resolve(undefined);
    const key = `${call.sessionId}\0${call.workspace}`;
    const known = turns.get(key);
    if (known && known.turn === call.turn) return known.snapshot;
    const snapshot = snapshotFor(call);
    turns.delete(key);
    turns.set(key, { turn: call.turn, snapshot });
    if (turns.size > REMEMBERED_SESSIONS) turns.delete(turns.keys().next().value!);
    return snapshot;
  };

  async function snapshotFor(call: ChangingCall): Promise<SnapshotOutcome | undefined> {
    try {
      const repository = shadowRepositoryFor(settings.home, call.workspace);
      const broad = tooBroad(repository.workTree, settings.home);
      if (broad) {
        logger.warn({ sessionId: call.sessionId, workspace: repository.workTree }, `No checkpoints of a workspace that ${broad}`);
        return { kind: 'skipped', reason: `the workspace ${broad}`, durationMs: 0 };
      }
      const outcome = await takeCheckpoint(repository, { sessionId: call.sessionId, turn: call.turn, toolCallId: call.toolCallId, tool: call.tool, reason: 'tool_call' }, settings);
      const where = { sessionId: call.sessionId, workspace: repository.workTree, durationMs: outcome.durationMs };
      if (outcome.kind !== 'skipped' && outcome.warning) logger.warn({ ...where }, `Workspace checkpoint: ${outcome.warning}`);
      if (outcome.kind === 'skipped') logger.warn({ ...where, reason: outcome.reason }, 'No checkpoint of the workspace before this turn');
      else if (outcome.kind === 'taken') logger.debug({ ...where, checkpoint: outcome.checkpoint.id }, 'Workspace checkpoint taken');
      return outcome;
    } catch (error) {
      logger.warn({ sessionId: call.sessionId, workspace: call.workspace, err: error }, 'Workspace checkpoint failed; the call goes on without one');
      return undefined;
    }
  }
}

/** Why a folder is no workspace to copy whole (the original skips `/` and the home folder too). */
function tooBroad(workTree: string, home: string): string | undefined {
  if (workTree === '/' || workTree === os.homedir()) return 'is / or the home folder';
  // Its checkpoints would hold checkpoints.
  if (isWithin(realOrSelf(home), workTree)) return `holds the hermes home ${home}`;
  return undefined;
}
