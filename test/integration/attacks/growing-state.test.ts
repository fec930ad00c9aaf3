// The model grows session state turn by turn: state that lives in the workflow (the plan) travels
// in every call's result and in each continue-as-new, so it must stop growing before Temporal's
// payload limit, with an error the model can act on, and the session must go on.
import { humanApproves, resultsOf, runAttack, terminal, type AttackWorld, setUpAttacks } from '../../helpers/attack-world';
import { temporal } from '@temporalio/proto';
import type { Harness } from '../../helpers/session-harness';

let harness: Harness;
let world: AttackWorld;
setUpAttacks((connected) => (harness = connected), (created) => (world = created));

jest.setTimeout(120_000);

test('a plan grown turn by turn past what history can carry: the growing call is refused, the plan kept, the session goes on', async () => {
  // Each item is within the plan's own limits (4000 characters); ten of them are 120 KB as UTF-8.
  // Before, the plan outgrew Temporal's 2 MB payload limit after ~18 turns and the session hung.
  const growTurn = (turn: number) => ({
    tool_calls: [{ name: 'todo', arguments: { merge: true, todos: Array.from({ length: 10 }, (_, index) => ({ id: `${turn}.${index}`, content: '漢'.repeat(4000), status: 'pending' })) } }],
  });
  const run = await runAttack(harness, world, () => ({
    turns: [...Array.from({ length: 20 }, (_, turn) => growTurn(turn)), { tool_calls: [{ name: 'todo', arguments: {} }, terminal('echo alive')] }, { content: 'done' }],
  }), {}, undefined, { limits: { turnsPerRun: 8 } });
  expect(run.result).toMatchObject({ status: 'completed', toolCalls: 22 });
  const results = await resultsOf(run);
  const totals = results.slice(0, 20).map((result) => (result.summary as { total?: number } | undefined)?.total);
  const kept = totals.filter((total) => total !== undefined);
  // The plan grew until the bound, then every further growth was refused with the reason.
  expect(kept).toEqual(Array.from({ length: kept.length }, (_, index) => (index + 1) * 10));
  expect(kept.length).toBeGreaterThanOrEqual(3);
  for (const refused of results.slice(kept.length, 20)) expect(String(refused.error)).toMatch(/^The plan would take \d+ characters; at most \d+ are kept\..*The plan is unchanged\.$/);
  // Across continue-as-new (every 8 turns here), the plan is the last one accepted.
  expect((results[20]?.summary as { total?: number }).total).toBe(kept.length * 10);
  expect(results[21]).toMatchObject({ output: 'alive', exit_code: 0 });
});

test('a model that keeps delegating large tasks while its sub-agents are busy: the waiting queue is bounded, the session continues as new and completes', async () => {
  // Each task is within delegate_task's own limits; queued children wait with their whole input.
  // Before, the queue outgrew Temporal's 2 MB limit on the continue-as-new input and the session hung.
  const task = (turn: number, call: number, index: number) => ({ goal: `sub-goal ${turn}.${call}.${index} `.padEnd(9_000, 'g'), context: 'c'.repeat(40_000) });
  const delegateTurn = (turn: number) => ({
    tool_calls: Array.from({ length: 4 }, (_, call) => ({ name: 'delegate_task', arguments: { tasks: [0, 1, 2].map((index) => task(turn, call, index)) } })),
  });
  const run = await runAttack(
    harness,
    world,
    () => ({
      turns: [...[0, 1, 2, 3, 4].map(delegateTurn), { tool_calls: [terminal('echo alive')] }, { content: 'done' }],
      agents: [{ match: 'sub-goal', turns: [{ content: 'child done', delay_ms: 3_000 }] }],
    }),
    {},
    undefined,
    { limits: { turnsPerRun: 5 } },
  );
  expect(run.result).toMatchObject({ status: 'completed' });
  const results = await resultsOf(run);
  const delegations = results.slice(0, 20);
  const dispatched = delegations.filter((result) => result.status === 'dispatched');
  const refused = delegations.filter((result) => /^Not delegated: \d+ sub-agent\(s\) would wait for a free slot, with \d+ characters .* at most \d+ can wait\./.test(String(result.error)));
  expect(dispatched.length).toBeGreaterThanOrEqual(2);
  expect(refused.length).toBeGreaterThanOrEqual(1);
  expect(dispatched.length + refused.length).toBe(20);
  expect(results[20]).toMatchObject({ output: 'alive', exit_code: 0 });
  const description = await run.handle.describe();
  const firstRunId = description.raw.workflowExecutionInfo?.firstRunId ?? '';
  expect(description.runId).not.toBe(firstRunId);
  // Before, the continue-as-new was refused (its input too large) and retried until children drained the queue.
  expect(await workflowTaskFailures(run.handle.workflowId, firstRunId)).toEqual([]);
});

test('a hundred background processes that end at once, each with a long command line, are all reported and the session goes on', async () => {
  // Their notifications reach the model in one message (and any continue-as-new): before, with the
  // whole command in each, that message passed Temporal's 2 MB limit and the session hung.
  const background = (index: number) => terminal(`sleep 1 # ${String(index).padEnd(25_000, 'z')}`, { background: true, notify_on_complete: true });
  const run = await runAttack(
    harness,
    world,
    () => ({ turns: [{ tool_calls: Array.from({ length: 100 }, (_, index) => background(index)) }, { tool_calls: [terminal('echo alive')] }, { content: 'done' }, { content: 'done' }] }),
    {},
    humanApproves(world, 'sleep 1 #', 100),
  );
  expect(run.result).toMatchObject({ status: 'completed' });
  const results = await resultsOf(run);
  expect(results.slice(0, 100).every((result) => typeof result.session_id === 'string')).toBe(true);
  expect(results[100]).toMatchObject({ output: 'alive', exit_code: 0 });
  const told = (await run.store.getMessages(run.sessionId)).filter((message) => message.role === 'user' && message.content?.includes('[IMPORTANT: Background process'));
  const reported = told.flatMap((message) => message.content?.match(/Background process proc_\w+ completed normally/g) ?? []);
  expect(new Set(reported).size).toBe(100);
  for (const message of told) expect(message.content?.length).toBeLessThan(500_000);
  const description = await run.handle.describe();
  expect(await workflowTaskFailures(run.handle.workflowId, description.raw.workflowExecutionInfo?.firstRunId ?? '')).toEqual([]);
});

const { WorkflowTaskFailedCause } = temporal.api.enums.v1;
const RACES_WITH_NEW_EVENTS: number[] = [WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND, WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_FORCE_CLOSE_COMMAND];

/** The failure messages of a run's failed workflow tasks, read one event a page: events may be megabytes each. */
async function workflowTaskFailures(workflowId: string, runId: string): Promise<string[]> {
  const failures: string[] = [];
  let nextPageToken: Uint8Array | undefined;
  for (let page = 0; page < 5000; page++) {
    const response = await harness.client.workflowService.getWorkflowExecutionHistory({ namespace: 'default', execution: { workflowId, runId }, maximumPageSize: 1, nextPageToken });
    for (const event of response.history?.events ?? []) {
      const failed = event.workflowTaskFailedEventAttributes;
      // A task that lost a race with new events (unhandled or force-close command) is retried at once by design.
      if (failed && !RACES_WITH_NEW_EVENTS.includes(failed.cause ?? 0)) {
        failures.push(failed.failure?.message ?? `(cause ${failed.cause})`);
      }
    }
    if (!response.nextPageToken?.length) return failures;
    nextPageToken = response.nextPageToken;
  }
  throw new Error('history longer than 5000 events');
}
