// Sessions outlive their workers and their own history: a worker killed in the middle of a
// command, and a long session that continues as new.
import { spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { followSession } from '../../src/cli/follow-session';
import { startScriptedModelServer } from '../../src/model/scripted-model-server';
import { startSession } from '../../src/temporal/sessions';
import type { ToolEvent } from '../../src/workflows/session-types';
import {
  connectHarness,
  testConfig,
  uniqueName,
  withScriptedSession,
  type Harness,
} from '../helpers/session-harness';
import { waitFor } from '../helpers/wait';
import { finishAfterKilledWorker, spawnWorkerProcess } from '../helpers/worker-process';


let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(async () => {
  await harness.close();
});

test('a command whose worker is killed is reported as interrupted, not re-run, and its process is gone', async () => {
  const token = uniqueName('orphan');
  const script = {
    turns: [
      { tool_calls: [{ name: 'terminal', arguments: { command: `echo begun > marker.txt; sleep 30 # ${token}\necho never > after.txt` } }] },
      { content: 'noted the interruption' },
    ],
  };
  const model = await startScriptedModelServer({ script });
  const config = testConfig({ model: { base_url: model.url } });
  let child: ChildProcess | undefined;
  try {
    const handle = await startSession(harness.client, { task: 'survive a crash', config, limits: { toolHeartbeatTimeoutSeconds: 2 } });
    child = spawnWorkerProcess({
      address: harness.address,
      config,
      modelUrl: model.url,
    });
    const marker = path.join(config.session.cwd, 'marker.txt');
    await waitFor(() => existsSync(marker), { timeoutMs: 60_000, what: 'the command to start on the child worker' });
    child.kill('SIGKILL');

    const { store } = await finishAfterKilledWorker(harness, config, handle, 1);
    // The orphaned command was killed, so it never reached its second line.
    await waitFor(() => spawnSync('pgrep', ['-f', token]).status === 1, { timeoutMs: 5000, what: 'the orphaned command to die' });
    expect(existsSync(path.join(config.session.cwd, 'after.txt'))).toBe(false);
    await store.close();
  } finally {
    child?.kill('SIGKILL');
    await model.close();
  }
});

test('a command whose worker is killed seconds in: the model gets every line it printed, within seconds', async () => {
  const token = uniqueName('printed');
  const lines = Array.from({ length: 10 }, (_, index) => `line-${index + 1}-${token}`);
  const script = {
    turns: [
      { tool_calls: [{ name: 'terminal', arguments: { command: `for i in $(seq 1 10); do echo line-$i-${token}; done; echo begun > marker.txt; sleep 30 # ${token}` } }] },
      { content: 'noted the interruption' },
    ],
  };
  const model = await startScriptedModelServer({ script });
  const config = testConfig({ model: { base_url: model.url } });
  let child: ChildProcess | undefined;
  try {
    // The default heartbeat timeout: what decides how soon the retry starts in production.
    const handle = await startSession(harness.client, { task: 'survive a crash with output', config });
    child = spawnWorkerProcess({ address: harness.address, config, modelUrl: model.url });
    const marker = path.join(config.session.cwd, 'marker.txt');
    await waitFor(() => existsSync(marker), { timeoutMs: 60_000, intervalMs: 20, what: 'the command to print its lines' });
    // Well inside the heartbeat throttle: the output tail in heartbeats cannot be relied on.
    await new Promise((resolve) => setTimeout(resolve, 300));
    child.kill('SIGKILL');
    const killedAt = Date.now();

    const { results, store } = await finishAfterKilledWorker(harness, config, handle, 1);
    const messages = await store.getMessages(handle.workflowId.replace(/^hermes-session-/, ''));
    const toolMessage = messages.find((message) => message.role === 'tool');
    expect(toolMessage).toBeDefined();
    expect(String(results[0]?.output).split('\n')).toEqual(lines);
    // SIGKILL to the stored interrupted result: the heartbeat timeout (10 s) plus the retry's second.
    const elapsed = Date.parse(toolMessage?.createdAt ?? '') - killedAt;
    console.log(`SIGKILL to interrupted result: ${elapsed} ms`);
    expect(elapsed).toBeLessThan(15_000);
    expect(spawnSync('pgrep', ['-f', token]).status).toBe(1);
    await store.close();
  } finally {
    child?.kill('SIGKILL');
    await model.close();
  }
}, 60_000);

test('a long session continues as new at turn boundaries without losing its place', async () => {
  const turn = (index: number) => ({ tool_calls: [{ name: 'terminal', arguments: { command: `echo turn-${index}` } }] });
  const script = { turns: [turn(1), turn(2), turn(3), turn(4), turn(5), { content: 'finished after five tools' }] };
  await withScriptedSession(harness, { script, limits: { turnsPerRun: 2 } }, async ({ handle, store }) => {
    const events: ToolEvent[] = [];
    const final = await followSession(handle, (event) => {
      if (event.type !== 'final') events.push(event);
    }, { pollMs: 50 });
    expect(final).toMatchObject({ status: 'completed', answer: 'finished after five tools', turns: 6, toolCalls: 5 });
    const description = await handle.describe();
    expect(description.runId).not.toBe(description.raw.workflowExecutionInfo?.firstRunId);
    const sessionId = handle.workflowId.replace(/^hermes-session-/, '');
    const messages = await store.getMessages(sessionId);
    expect(messages.map((message) => message.seq)).toEqual(messages.map((_, index) => index));
    const outputs = messages.filter((message) => message.role === 'tool').map((message) => (JSON.parse(message.content ?? '{}') as { output: string }).output);
    expect(outputs).toEqual(['turn-1', 'turn-2', 'turn-3', 'turn-4', 'turn-5']);
    // Event indexes carry across runs, so a follower sees every tool exactly once.
    const finished = events.filter((event) => event.type === 'tool_finished');
    expect(finished.map((event) => event.summary)).toEqual([1, 2, 3, 4, 5].map((index) => `terminal: echo turn-${index}`));
    // The last run started from the count its predecessors reached, however quick their turns.
    const [started] = (await handle.fetchHistory()).events ?? [];
    const inherited = started?.workflowExecutionStartedEventAttributes?.searchAttributes?.indexedFields?.HermesToolCalls;
    expect(inherited && defaultPayloadConverter.fromPayload(inherited)).toBe(4);
  });
});
