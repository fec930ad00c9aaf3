// Follows a session's sub-agents (and theirs) alongside it: polls each running child's status
// query and passes its tool events on, tagged with the child's session id and depth, so `run`
// can show them indented under the parent.
import type { WorkflowClient } from '@temporalio/client';
import { statusQuery } from '../workflows/messages';
import type { SessionStatus, ToolEvent } from '../workflows/session-types';

/** A tool event of a sub-agent: which session it came from, and how deep that session is. */
export type DescendantEvent = ToolEvent & { sessionId: string; depth: number };

/** Finished children are polled once more (to flush their last events), then no longer. */
export class ChildFollower {
  private readonly lastIndex = new Map<string, number>();
  private readonly done = new Set<string>();

  constructor(
    private readonly client: WorkflowClient,
    private readonly onEvent: (event: DescendantEvent) => void,
  ) {}

  /** Polls every child named in `status` (recursively); never throws. */
  async poll(status: SessionStatus, depth = 1): Promise<void> {
    const children = (status.children ?? []).filter((child) => child.status !== 'queued' && !this.done.has(child.sessionId));
    await Promise.all(
      children.map(async (child) => {
        if (child.status !== 'running') this.done.add(child.sessionId);
        let childStatus: SessionStatus;
        try {
          childStatus = await this.client.getHandle(child.workflowId).query(statusQuery);
        } catch {
          return; // closed, between runs, or no worker: its parent's child_finished event says how it ended
        }
        const last = this.lastIndex.get(child.sessionId) ?? -1;
        for (const event of childStatus.events) {
          if (event.index <= last) continue;
          this.lastIndex.set(child.sessionId, event.index);
          this.onEvent({ ...event, sessionId: child.sessionId, depth });
        }
        await this.poll(childStatus, depth + 1);
      }),
    );
  }
}
