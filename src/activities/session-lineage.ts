// Where a child or a continued run came from. Temporal sets a run's parent and previous run, but
// not only for sessions: any workflow on any worker may start an agentSession child or continue
// as one on another task queue, and an unsigned cron start's next run continues its failed first.
// Only a run of agentSession on this session's own task queue (so one that this code ran, after
// its own start was checked) vouches for a run, and a previous run only by continuing as new.
import type { Client } from '@temporalio/client';
import type { StartVerification } from '../approval-signals/start-signature';

/** The run Temporal names as a run's origin. */
export type SessionLineage = { kind: 'parent'; workflowId: string; runId: string } | { kind: 'continued'; workflowId: string; runId: string };

export interface RunFacts {
  workflowType: string;
  taskQueue: string;
  /** As the server names it: `RUNNING`, `CONTINUED_AS_NEW`, `FAILED`, ... */
  status: string;
}

/** The workflow type whose runs vouch for others. */
export const SESSION_WORKFLOW_TYPE = 'agentSession';

export async function verifyLineage(
  lineage: SessionLineage,
  ownTaskQueue: string,
  describeRun: (workflowId: string, runId: string) => Promise<RunFacts | undefined>,
): Promise<StartVerification> {
  const origin = lineage.kind === 'parent' ? 'its parent' : 'the run it continues';
  const facts = await describeRun(lineage.workflowId, lineage.runId);
  if (!facts) return { ok: false, reason: `${origin} (${lineage.workflowId}) is not known to the server` };
  if (facts.workflowType !== SESSION_WORKFLOW_TYPE || facts.taskQueue !== ownTaskQueue) {
    return { ok: false, reason: `${origin} (${lineage.workflowId}) is a ${facts.workflowType} workflow on task queue ${facts.taskQueue}, not a session on ${ownTaskQueue}` };
  }
  if (lineage.kind === 'continued' && facts.status !== 'CONTINUED_AS_NEW') {
    return { ok: false, reason: `the run it follows (${lineage.workflowId}) ended ${facts.status.toLowerCase()}, not by continuing as new: only a session's own continuation carries it on` };
  }
  return { ok: true, startedBy: lineage.kind === 'parent' ? `session ${lineage.workflowId}` : `the previous run of ${lineage.workflowId}` };
}

/** The server's facts about one run, from the worker's own client. */
export function describeRunWith(client: Client): (workflowId: string, runId: string) => Promise<RunFacts | undefined> {
  return async (workflowId, runId) => {
    try {
      const description = await client.workflow.getHandle(workflowId, runId).describe();
      return { workflowType: description.type, taskQueue: description.taskQueue, status: description.status.name };
    } catch (error) {
      if ((error as { name?: string }).name === 'WorkflowNotFoundError') return undefined;
      throw error;
    }
  };
}
