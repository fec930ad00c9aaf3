// What a CLI command can reach of a session, found within seconds: whether its workflow runs,
// whether any worker polls its task queue (queries and updates need one; signals do not), and
// the pending approvals the workflow keeps in its memo for when no worker answers.
import type { Client, WorkflowHandle } from '@temporalio/client';
import { z } from 'zod';
import { PENDING_APPROVALS_MEMO, type MemoPendingApproval } from '../approval-signals/pending-approvals-memo';
import { isTemporalError } from '../temporal/error-names';
import { workflowIdFor } from '../temporal/sessions';

/** How long one look-up (describe, a query, an update) may take before the command says why it stopped. */
export const CLI_CALL_TIMEOUT_MS = 5000;
/** A poller not seen for this long has gone (the server remembers pollers for minutes). */
const POLLER_FRESH_MS = 90_000;

export interface SessionReach {
  sessionId: string;
  handle: WorkflowHandle;
  taskQueue: string;
  /** A worker polled the session's task queue recently. */
  workerPolling: boolean;
  /** Pending approvals as the workflow last recorded them in its memo (undefined: an older workflow). */
  memoPending?: MemoPendingApproval[];
}

const memoPendingSchema = z.array(
  z.object({
    approvalId: z.string().max(200),
    command: z.string(),
    description: z.string(),
    requestedAt: z.string(),
    expiresAt: z.string(),
    tool: z.string().optional(),
    refusedDecision: z.string().optional(),
  }),
);

/** Describes the session's workflow and its task queue's pollers, each call bounded. */
export async function reachSession(client: Client, sessionId: string): Promise<SessionReach> {
  const handle = client.workflow.getHandle(workflowIdFor(sessionId));
  const description = await bounded(client, `describe session ${sessionId}`, () => handle.describe()).catch((error: unknown) => {
    if (isTemporalError(error, 'WorkflowNotFoundError')) throw new Error(`No session '${sessionId}' on the Temporal server (workflow ${handle.workflowId} not found)`);
    throw error;
  });
  if (description.status.name !== 'RUNNING') {
    throw new Error(`Session ${sessionId} is not running (${description.status.name.toLowerCase()}): nothing waits for a decision`);
  }
  const taskQueue = description.taskQueue;
  // Loaded here, not up front: the client (connected by now) has already loaded it.
  const { temporal } = await import('@temporalio/proto');
  const pollers = await bounded(client, `describe task queue ${taskQueue}`, () =>
    client.workflowService.describeTaskQueue({
      namespace: client.options.namespace,
      taskQueue: { name: taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
      taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    }),
  );
  const now = Date.now();
  const workerPolling = (pollers.pollers ?? []).some((poller) => {
    const seconds = Number(poller.lastAccessTime?.seconds ?? 0);
    return now - seconds * 1000 < POLLER_FRESH_MS;
  });
  const memo = description.memo?.[PENDING_APPROVALS_MEMO];
  const parsed = memo === undefined ? undefined : memoPendingSchema.safeParse(memo);
  return { sessionId, handle, taskQueue, workerPolling, ...(parsed?.success ? { memoPending: parsed.data } : {}) };
}

/** The line that says why a query or update cannot be answered now. */
export function noWorkerMessage(reach: Pick<SessionReach, 'sessionId' | 'taskQueue'>): string {
  return `No worker is polling task queue '${reach.taskQueue}' of session ${reach.sessionId}: start one with \`hermes-temporal worker\` (HERMES_TASK_QUEUE=${reach.taskQueue})`;
}

/** Runs one server call with a deadline, turning an expired one into a sentence. */
export async function bounded<T>(client: Client, what: string, call: () => Promise<T>, timeoutMs = CLI_CALL_TIMEOUT_MS): Promise<T> {
  try {
    return await client.connection.withDeadline(Date.now() + timeoutMs, call);
  } catch (error) {
    if (isDeadlineExceeded(error)) throw new DeadlineError(`Could not ${what} within ${Math.round(timeoutMs / 1000)} s`);
    throw error;
  }
}

export class DeadlineError extends Error {}

function isDeadlineExceeded(error: unknown): boolean {
  for (let current = error as { code?: unknown; message?: string; cause?: unknown } | undefined, depth = 0; current && depth < 5; depth += 1) {
    if (current.code === 4 || /deadline exceeded/i.test(current.message ?? '')) return true;
    current = current.cause as typeof current;
  }
  return false;
}
