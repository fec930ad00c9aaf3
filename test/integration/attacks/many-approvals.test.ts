// One reply asks for two thousand dangerous commands at once. Each waits for a person; the views
// operators read (details line, memo, search attributes) must not grow with the square of that,
// or one workflow task passes the server's 4 MB message limit (the session failed) or the SDK's
// 5 s limit (the worker process aborted, with every session on it). Or the reply holds 2,048
// reads, which may all run side by side: past the server's 2,000 pending activities a workflow.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { WORKFLOWS_PATH } from '../../../src/temporal/worker';
import { mostActivitiesPending } from '../../helpers/history-events';
import { type Harness } from '../../helpers/session-harness';
import { waitFor } from '../../helpers/wait';
import { humanApproves, resultsOf, runAttack, terminal, type AttackWorld, setUpAttacks } from '../../helpers/attack-world';

let harness: Harness;
let world: AttackWorld;
setUpAttacks((connected) => (harness = connected), (created) => (world = created));

// About 30 s each alone; on a loaded 2-core CI machine beside the other suites one passed 300 s. What is
// tested is that every call is asked and the session goes on, not how fast: bench/ measures that.
jest.setTimeout(600_000);

test('two thousand dangerous calls in one reply are each asked about, time out unanswered, and the session goes on', async () => {
  // 300 characters each: the reply stays within its budget, so every call is gated.
  const calls = Array.from({ length: 2000 }, (_, index) => terminal(`rm -rf reports-${index}/${'x'.repeat(300)}`));
  const run = await runAttack(harness, world, () => ({ turns: [{ tool_calls: calls }, { tool_calls: [terminal('echo alive')] }, { content: 'done' }] }));
  expect(run.result).toMatchObject({ status: 'completed', toolCalls: calls.length + 1 });
  const results = await resultsOf(run);
  expect(results).toHaveLength(calls.length + 1);
  expect(results.slice(0, -1).every((result) => /timed out|not approved|denied/i.test(String(result.error)))).toBe(true);
  expect(results.at(-1)).toMatchObject({ output: 'alive', exit_code: 0 });
  // The memo of pending approvals, the status and the count were written once per workflow task,
  // not once per approval; the calls were judged in batches, not by an activity each (whose
  // completions overflowed what the server buffers while a task runs, failing tasks).
  const events = await eventsOfEveryRun(run.handle.workflowId);
  expect(events.filter((event) => event.workflowPropertiesModifiedEventAttributes).length).toBeLessThan(200);
  expect(events.filter((event) => event.upsertWorkflowSearchAttributesEventAttributes).length).toBeLessThan(200);
  // Raised together, they time out together, on one timer: two thousand firing at once overflowed the buffer too.
  expect(events.filter((event) => event.timerStartedEventAttributes).length).toBeLessThan(20);
  const assessments = events.filter((event) => /^assessCommand/.test(event.activityTaskScheduledEventAttributes?.activityType?.name ?? ''));
  expect(assessments.length).toBeLessThan(400);
  // Refused, they only write their refusals: many to an activity, not one each, one after another.
  const toolActivities = events.filter((event) => /^(executeTool|storeRefusals)$/.test(event.activityTaskScheduledEventAttributes?.activityType?.name ?? ''));
  expect(toolActivities.length).toBeLessThan(100);
  // Each still names its calls in the Web UI.
  const refusals = toolActivities.filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'storeRefusals');
  expect(refusals.length).toBeGreaterThan(0);
  for (const event of refusals) expect(defaultPayloadConverter.fromPayload(event.userMetadata?.summary ?? {})).toMatch(/^refused: terminal: rm -rf reports-\d+/);
  // (A task the server failed for what arrived while it ran; one slow on a loaded machine may still time out.)
  const overflowed = temporal.api.enums.v1.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_FORCE_CLOSE_COMMAND;
  expect(events.filter((event) => event.workflowTaskFailedEventAttributes?.cause === overflowed)).toEqual([]);
  // Which refusals went together was decided as the gates settled: a worker replaying decides the same.
  await expectEveryRunReplays(run.handle.workflowId);
});

test('2,048 reads in one reply run at most session.max_parallel_tool_calls at once, and the session goes on', async () => {
  writeFileSync(path.join(world.workspace, 'notes.txt'), 'read me\n');
  const reads = Array.from({ length: 2048 }, () => ({ name: 'read_file', arguments: { path: 'notes.txt' } }));
  const run = await runAttack(harness, world, () => ({ turns: [{ tool_calls: reads }, { tool_calls: [terminal('echo alive')] }, { content: 'done' }] }), { session: { max_parallel_tool_calls: 50 } });
  expect(run.result).toMatchObject({ status: 'completed', toolCalls: reads.length + 1 });
  const results = await resultsOf(run);
  expect(results).toHaveLength(reads.length + 1);
  // Each read, or, once the run's history is as long as it should get, a "make the call again" answer.
  const read = results.slice(0, -1).filter((result) => JSON.stringify(result).includes('read me'));
  const notRun = results.slice(0, -1).filter((result) => /history is full for this run/.test(String(result.error)));
  expect(read.length + notRun.length).toBe(reads.length);
  expect(read.length).toBeGreaterThan(1000);
  expect(results.at(-1)).toMatchObject({ output: 'alive', exit_code: 0 });
  // Scheduled all at once, the server refused every task that scheduled them (2,000 pending at most).
  const events = await eventsOfEveryRun(run.handle.workflowId);
  expect(events.filter((event) => event.workflowTaskFailedEventAttributes)).toEqual([]);
  expect(mostActivitiesPending(events, 'executeTool')).toBe(50);
  await expectEveryRunReplays(run.handle.workflowId);
});

test('a call waiting for a person holds no slot: the calls beside it run meanwhile, one at a time', async () => {
  const bashrc = path.join(world.home, '.bashrc');
  const before = readFileSync(bashrc, 'utf8');
  const write = (target: string, content: string) => ({ name: 'write_file', arguments: { path: target, content } });
  const script = () => ({ turns: [{ tool_calls: [write(bashrc, `${before}export EDITOR=vi\n`), write('a.txt', 'a\n'), write('b.txt', 'b\n')] }, { content: 'done' }] });
  let writtenWhileWaiting = false;
  const run = await runAttack(harness, world, script, { session: { max_parallel_tool_calls: 1 }, approvals: { timeout_seconds: 120 } }, async (handle, finished) => {
    // The write of ~/.bashrc asks; the other two take the one slot while it waits.
    const workspaceFile = (name: string) => path.join(world.workspace, name);
    await waitFor(() => existsSync(workspaceFile('a.txt')) && existsSync(workspaceFile('b.txt')), { timeoutMs: 30_000, what: 'the writes beside the waiting one' }).then(
      () => (writtenWhileWaiting = readFileSync(bashrc, 'utf8') === before),
      () => undefined,
    );
    await humanApproves(world, '.bashrc')(handle, finished);
  });
  expect(writtenWhileWaiting).toBe(true);
  expect(run.result).toMatchObject({ status: 'completed', toolCalls: 3 });
  expect(readFileSync(bashrc, 'utf8')).toBe(`${before}export EDITOR=vi\n`);
});

/** The events of the session's runs, in one list (each run's numbered from 1). */
async function eventsOfEveryRun(workflowId: string): Promise<temporal.api.history.v1.IHistoryEvent[]> {
  return (await historiesOfEveryRun(workflowId)).flatMap((history) => history.events ?? []);
}

/** Each run of the session replays on this code without a nondeterminism error. */
async function expectEveryRunReplays(workflowId: string): Promise<void> {
  for (const history of await historiesOfEveryRun(workflowId)) await Worker.runReplayHistory({ workflowsPath: WORKFLOWS_PATH }, history, workflowId);
}

/**
 * The histories of the session's runs. Read with a larger message limit than the client's 4 MB:
 * Temporal pages history by batches of events, and the two thousand assessments come in a page of ~7 MB.
 */
async function historiesOfEveryRun(workflowId: string): Promise<temporal.api.history.v1.IHistory[]> {
  const connection = await Connection.connect({ address: harness.address, channelArgs: { 'grpc.max_receive_message_length': 64 * 1024 * 1024 } });
  try {
    const client = new Client({ connection });
    const histories: temporal.api.history.v1.IHistory[] = [];
    for await (const execution of client.workflow.list({ query: `WorkflowId = "${workflowId}"` })) {
      histories.push(await client.workflow.getHandle(workflowId, execution.runId).fetchHistory());
    }
    return histories;
  } finally {
    await connection.close();
  }
}
