// Asks the Temporal server how workflows ended: a parent uses it to notice a sub-agent that closed
// without reporting (terminated by an operator after the parent continued as new, when no child
// handle is left to tell it).
import type { Client } from '@temporalio/client';

export interface ClosedWorkflow {
  workflowId: string;
  /** `terminated`, `failed`, `timed_out`, `canceled`, `completed`, ... */
  status: string;
}

export function createWorkflowStatusActivities(deps: { client?: Client }) {
  return {
    /** The workflows among `workflowIds` that are no longer running (unknown ones count as gone). */
    async closedWorkflows(input: { workflowIds: string[] }): Promise<ClosedWorkflow[]> {
      const client = deps.client;
      if (!client) return [];
      const closed: ClosedWorkflow[] = [];
      for (const workflowId of input.workflowIds.slice(0, 1000)) {
        try {
          const description = await client.workflow.getHandle(workflowId).describe();
          if (description.status.name !== 'RUNNING') closed.push({ workflowId, status: description.status.name.toLowerCase() });
        } catch (error) {
          if ((error as { name?: string }).name === 'WorkflowNotFoundError') closed.push({ workflowId, status: 'not_found' });
          else throw error;
        }
      }
      return closed;
    },
  };
}
