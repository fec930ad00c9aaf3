// A session that stops (cancelled, timed out, at its turn limit) while a sub-agent's start is on its
// way to the server must cancel that sub-agent too: started with ParentClosePolicy.ABANDON, it would
// otherwise run on, unseen, its commands changing the workspace after the user stopped the session.
import { Worker } from '@temporalio/worker';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { ChildView } from '../../src/workflows/delegation-types';
import { childWorkflowId } from '../../src/workflows/subagents';
import { connectHarness, uniqueName, type Harness } from '../helpers/session-harness';
import { waitFor } from '../helpers/wait';

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(async () => {
  await harness.close();
});

test('children still being started when their parent stops are cancelled; queued ones never start', async () => {
  const taskQueue = uniqueName('stop-while-starting');
  const sessionId = uniqueName('parent');
  const worker = await Worker.create({ connection: harness.nativeConnection, taskQueue, workflowsPath: require.resolve('../fixtures/delegation-workflows') });
  const children = [0, 1, 2, 3, 4, 5].map((index) => harness.client.workflow.getHandle(childWorkflowId(`${sessionId}-sa${index}`)));
  const statusOf = async (index: number) => {
    try {
      return (await children[index]!.describe()).status.name;
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return 'never started';
      throw error;
    }
  };
  try {
    await worker.runUntil(async () => {
      const views: ChildView[] = await harness.client.workflow.execute('stopWhileChildrenStart', { taskQueue, workflowId: uniqueName('parent-workflow'), args: [sessionId, 2] });
      expect(views.map((view) => view.status)).toEqual(Array(6).fill('cancelled'));
      // The three that were starting: cancelled on the server, not left running.
      await waitFor(async () => (await Promise.all([0, 1, 2].map(statusOf))).every((status) => status !== 'RUNNING'), { timeoutMs: 10_000, what: 'the started children to close' }).catch(() => undefined);
      expect(await Promise.all([0, 1, 2].map(statusOf))).toEqual(['CANCELLED', 'CANCELLED', 'CANCELLED']);
      expect(await Promise.all([3, 4, 5].map(statusOf))).toEqual(['never started', 'never started', 'never started']);
    });
  } finally {
    // Whatever the parent left running.
    await Promise.all(children.map((child) => child.terminate('test cleanup').catch(() => undefined)));
  }
});
