// Brings a session record's status in line with how its workflow really ended. A workflow that
// was terminated, timed out, or failed while the store could not be written never recorded its
// end; Temporal knows it, so readers (`sessions`, `show`) reconcile the record from there.
import type { Client } from '@temporalio/client';
import { OPEN_SESSION_STATUSES, type SessionRecord, type SessionStore } from '../store/session-store';
import { HermesStopReason } from './search-attributes';

const CLOSED_STATUS: Record<string, string> = {
  FAILED: 'failed',
  TERMINATED: 'terminated',
  TIMED_OUT: 'timed_out',
  CANCELLED: 'cancelled',
  COMPLETED: 'completed',
};

export interface StatusSyncOptions {
  /** Bound for all the look-ups together; records not reached in time are left as they are. */
  timeoutMs?: number;
}

/**
 * Returns the records with the status their workflows ended with, writing each correction to the
 * store. Records already closed, and workflows still running or unknown to the server, are kept.
 */
export async function syncSessionStatuses(
  client: Client,
  store: SessionStore,
  sessions: SessionRecord[],
  options: StatusSyncOptions = {},
): Promise<SessionRecord[]> {
  const deadline = Date.now() + (options.timeoutMs ?? 5000);
  const synced: SessionRecord[] = [];
  for (const session of sessions) {
    if (!OPEN_SESSION_STATUSES.has(session.status) || Date.now() >= deadline) {
      synced.push(session);
      continue;
    }
    const ended = await client.connection
      .withDeadline(deadline, () => workflowEnd(client, session.workflowId))
      .catch(() => undefined);
    if (!ended) {
      synced.push(session);
      continue;
    }
    await store.updateSession(session.sessionId, { status: ended.status, ...(ended.error ? { error: ended.error } : {}) });
    synced.push({ ...session, status: ended.status, ...(ended.error ? { error: ended.error } : {}), updatedAt: new Date().toISOString() });
  }
  return synced;
}

interface WorkflowEnd {
  status: string;
  error?: string;
}

/** How the workflow ended, or undefined while it runs. */
async function workflowEnd(client: Client, workflowId: string): Promise<WorkflowEnd | undefined> {
  const handle = client.workflow.getHandle(workflowId);
  const description = await handle.describe();
  const status = CLOSED_STATUS[description.status.name];
  if (!status) return undefined;
  if (status === 'completed') {
    // The session's own stop reason (completed, max_turns), which the workflow could not store.
    const stopReason = description.typedSearchAttributes.get(HermesStopReason);
    return { status: stopReason ?? 'completed' };
  }
  const reason = await handle.result().then(
    () => undefined,
    (error: unknown) => rootMessage(error),
  );
  const what = status === 'terminated' ? 'Workflow terminated' : status === 'timed_out' ? 'Workflow timed out' : status === 'cancelled' ? 'Workflow cancelled' : 'Workflow failed';
  return { status, error: reason ? `${what}: ${reason}` : what };
}

/** The workflow's own reason (the client wraps it in "Workflow execution failed"). */
function rootMessage(error: unknown): string | undefined {
  const wrapper = error as { message?: string; cause?: { message?: string } } | undefined;
  return wrapper?.cause?.message || wrapper?.message || undefined;
}
