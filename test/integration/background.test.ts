// Background processes in a whole session: started by the terminal tool, managed with the
// process tool, announced to the model when they end (notify_on_complete), and stopped when
// the session ends, however it ends.
import { existsSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { WorkflowExecutionDescription } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { startScriptedModelServer } from '../../src/model/scripted-model-server';
import { startSession } from '../../src/temporal/sessions';
import { releaseWorkerEnvironments } from '../../src/temporal/worker';
import { connectHarness, createTestWorker, expectCancelled, replaySessionHistory, sessionIdOf, testConfig, toolResults, uniqueName, withScriptedSession, type Harness } from '../helpers/session-harness';
import { mostActivitiesPending } from '../helpers/history-events';
import { markedSleep, pidsRunning } from '../helpers/processes';
import { waitFor } from '../helpers/wait';

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(async () => {
  await harness.close();
});

test('a session waits for a notify_on_complete process and tells the model when it ends', async () => {
  const script = {
    turns: [
      { tool_calls: [{ name: 'terminal', arguments: { command: 'sleep 1; echo build-output; exit 3', background: true, notify_on_complete: true } }] },
      { content: 'The build runs in the background; I will report when it ends.' },
      { content: 'The build finished with exit code 3.' },
    ],
  };
  await withScriptedSession(harness, { script }, async ({ handle, store, model }) => {
    const result = await handle.result();
    expect(result).toMatchObject({ status: 'completed', answer: 'The build finished with exit code 3.', turns: 3 });
    const [started] = await toolResults(store, handle);
    expect(started).toMatchObject({ output: 'Background process started', exit_code: 0, notify_on_complete: true });
    const notified = model.requests[2]!.messages.at(-1)!;
    expect(notified.role).toBe('user');
    expect(String(notified.content)).toMatch(new RegExp(`^\\[IMPORTANT: Background process ${String(started!.session_id)} exited \\(exit code 3\\)`));
    expect(String(notified.content)).toContain('build-output');
  });
});

test('a process that ends while the model gives its last answer is still told to the model', async () => {
  const script = {
    turns: [
      { tool_calls: [{ name: 'terminal', arguments: { command: 'sleep 1; exit 4', background: true, notify_on_complete: true } }] },
      // The process ends while this answer is on its way: none is watched when it arrives.
      { content: 'Started; I am done.', delay_ms: 4000 },
      { content: 'It ended with exit code 4.' },
    ],
  };
  await withScriptedSession(harness, { script }, async ({ handle, store, model }) => {
    const result = await handle.result();
    expect(result).toMatchObject({ status: 'completed', answer: 'It ended with exit code 4.', turns: 3 });
    const [started] = await toolResults(store, handle);
    expect(String(model.requests[2]?.messages.at(-1)?.content)).toMatch(new RegExp(`^\\[IMPORTANT: Background process ${String(started!.session_id)} exited \\(exit code 4\\)`));
  });
});

test('at most session.max_parallel_watches processes are watched at once; the others as those end, and each is reported once', async () => {
  // Watched all at once, a model starting thousands passed the server's 2,000 pending activities a workflow.
  const processes = 8;
  const start = (index: number) => ({ name: 'terminal', arguments: { command: `sleep 3; echo finished-${index}`, background: true, notify_on_complete: true } });
  const script = { turns: [{ tool_calls: Array.from({ length: processes }, (_, index) => start(index)) }, ...Array.from({ length: processes + 1 }, () => ({ content: 'noted' }))] };
  await withScriptedSession(harness, { script, config: { session: { max_parallel_watches: 3 } } }, async ({ handle, store }) => {
    expect(await handle.result()).toMatchObject({ status: 'completed' });
    const started = (await toolResults(store, handle)).map((result) => String(result.session_id));
    expect(new Set(started).size).toBe(processes);
    const told = (await store.getMessages(sessionIdOf(handle))).filter((message) => message.role === 'user').map((message) => message.content ?? '');
    for (const processId of started) {
      expect(told.join('\n').match(new RegExp(`Background process ${processId} completed normally`, 'g'))).toHaveLength(1);
    }
    const history = await handle.fetchHistory();
    expect(mostActivitiesPending(history.events ?? [], 'watchBackgroundProcess')).toBe(3);
    await replaySessionHistory(handle);
  });
});

test('watched processes hold none of the worker\'s activity slots: the session\'s other calls run while they wait', async () => {
  // Each watch held a slot while its process ran: four watched processes on a worker of three
  // slots left no slot for the fourth start or anything after it, on this session or any other.
  const release = uniqueName('release');
  const waiter = (index: number) => ({ name: 'terminal', arguments: { command: `while [ ! -f ${release} ]; do sleep 0.2; done; echo released-${index}`, background: true, notify_on_complete: true } });
  const script = { turns: [{ tool_calls: [0, 1, 2, 3].map(waiter) }, { tool_calls: [{ name: 'terminal', arguments: { command: 'echo alive' } }] }, ...Array.from({ length: 6 }, () => ({ content: 'noted' }))] };
  await withScriptedSession(harness, { script, config: { worker: { max_concurrent_activities: 3 } } }, async ({ handle, store, config }) => {
    try {
      await waitFor(async () => (await toolResults(store, handle)).some((result) => result.output === 'alive'), { timeoutMs: 60_000, what: 'the call after the watched processes' });
    } finally {
      writeFileSync(path.join(config.session.cwd, release), '');
    }
    expect(await handle.result()).toMatchObject({ status: 'completed' });
    const told = (await store.getMessages(sessionIdOf(handle))).filter((message) => message.role === 'user').map((message) => message.content ?? '').join('\n');
    for (const index of [0, 1, 2, 3]) expect(told).toContain(`released-${index}`);
  });
});

test('a watch the worker held is given back when the worker stops, and the next worker tells the session', async () => {
  const release = uniqueName('release');
  const command = `while [ ! -f ${release} ]; do sleep 0.2; done; echo released`;
  const script = { turns: [{ tool_calls: [{ name: 'terminal', arguments: { command, background: true, notify_on_complete: true } }] }, { content: 'started' }, { content: 'it ended' }] };
  const model = await startScriptedModelServer({ script });
  const config = testConfig({ model: { base_url: model.url } });
  const first = await createTestWorker(harness, config);
  try {
    const handle = await first.worker.runUntil(async () => {
      const started = await startSession(harness.client, { task: 'watch across workers', config });
      // The model has answered after the start: the session waits for the process, its watch handed over.
      await waitFor(() => model.requests.length >= 2, { timeoutMs: 60_000, what: 'the answer after the start' });
      await waitFor(async () => watchOf(await started.describe())?.state === temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED, { timeoutMs: 30_000, what: 'the watch' });
      return started;
    });
    await releaseWorkerEnvironments(first.worker);
    // Given back at once (a failed attempt, to be retried), not after its minute of heartbeat timeout.
    await waitFor(async () => /stopped/.test(watchOf(await handle.describe())?.lastFailure?.message ?? ''), { timeoutMs: 10_000, what: 'the watch given back' });
    writeFileSync(path.join(config.session.cwd, release), '');
    const second = await createTestWorker(harness, config, first.store);
    const result = await second.worker.runUntil(() => handle.result());
    await releaseWorkerEnvironments(second.worker);
    expect(result).toMatchObject({ status: 'completed', answer: 'it ended' });
    expect(String(model.requests[2]?.messages.at(-1)?.content)).toMatch(/^\[IMPORTANT: Background process proc_\w+ completed normally \(exit code 0\)[\s\S]*released/);
  } finally {
    writeFileSync(path.join(config.session.cwd, release), '');
    await model.close();
    await first.store.close();
  }
});

/** The session's pending watch activity, if any. */
function watchOf(description: WorkflowExecutionDescription) {
  return description.raw.pendingActivities?.find((activity) => activity.activityType?.name === 'watchBackgroundProcess');
}

test('the model manages a background process with the process tool across turns', async () => {
  const script = {
    turns: [
      { tool_calls: [{ name: 'terminal', arguments: { command: 'while read line; do echo "echo: $line"; done', background: true } }] },
      { tool_calls: [{ name: 'process', arguments: { action: 'submit', session_id: '{{last.session_id}}', data: 'hello' } }] },
      { tool_calls: [{ name: 'process', arguments: { action: 'poll', session_id: '{{last.session_id}}' } }] },
      { tool_calls: [{ name: 'process', arguments: { action: 'list' } }] },
      { tool_calls: [{ name: 'process', arguments: { action: 'kill', session_id: '{{last.session_id}}' } }] },
      { content: 'noted' },
    ],
  };
  await withScriptedSession(harness, { script }, async ({ handle, store }) => {
    await handle.result();
    const [started, submitted, polled, listed, killed] = await toolResults(store, handle);
    expect(started).toMatchObject({ output: 'Background process started' });
    expect(submitted).not.toHaveProperty('error');
    expect(polled).toMatchObject({ session_id: started!.session_id, status: 'running' });
    expect(String(polled!.output_preview)).toContain('echo: hello');
    expect(JSON.stringify(listed)).toContain(String(started!.session_id));
    expect(killed).toMatchObject({ status: 'killed' });
  });
});

const startInBackground = (command: string, extra: Record<string, unknown> = {}) => ({ name: 'terminal', arguments: { command, background: true, ...extra } });
const stateDirOf = (sessionId: string) => path.join(os.tmpdir(), 'hermes-bg', sessionId);

test('what a session leaves running in the background stops when it completes, and its process files go', async () => {
  const [plain, pty] = [markedSleep(300), markedSleep(300)];
  const script = { turns: [{ tool_calls: [startInBackground(plain), startInBackground(pty, { pty: true })] }, { content: 'started two servers' }] };
  await withScriptedSession(harness, { script }, async ({ handle, store }) => {
    expect(await handle.result()).toMatchObject({ status: 'completed' });
    const started = await toolResults(store, handle);
    expect(started).toEqual([expect.objectContaining({ output: 'Background process started' }), expect.objectContaining({ output: 'Background process started' })]);
    await waitFor(() => pidsRunning(plain).length + pidsRunning(pty).length === 0, { timeoutMs: 10_000, what: 'both background processes to stop' });
    expect(existsSync(stateDirOf(sessionIdOf(handle)))).toBe(false);
    // The step that stopped them is part of the history, and replays.
    await replaySessionHistory(handle);
  });
});

test('a cancelled session stops its background processes too', async () => {
  const [background, foreground] = [markedSleep(300), markedSleep(60)];
  const script = { turns: [{ tool_calls: [startInBackground(background)] }, { tool_calls: [{ name: 'terminal', arguments: { command: foreground } }] }, { content: 'never reached' }] };
  await withScriptedSession(harness, { script }, async ({ handle }) => {
    await waitFor(() => pidsRunning(foreground).length > 0, { timeoutMs: 30_000, what: 'the foreground command to start' });
    expect(pidsRunning(background).length).toBeGreaterThan(0);
    await handle.cancel();
    await expectCancelled(handle);
    await waitFor(() => pidsRunning(background).length === 0, { timeoutMs: 10_000, what: 'the background process to stop' });
    expect(existsSync(stateDirOf(sessionIdOf(handle)))).toBe(false);
  });
});
