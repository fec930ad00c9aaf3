// execute_code on a real Temporal server: a script reads three files and writes a summary through
// tool calls; one inner dangerous command waits for a signed approval like the model's own would;
// every inner call is in the session transcript (nested, so the model sees only the script's result).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { PendingApproval } from '../../src/approval-signals/approval-types';
import { pendingApprovalsQuery } from '../../src/approval-signals/definitions';
import { startScriptedModelServer } from '../../src/model/scripted-model-server';
import { startSession, type SessionHandle } from '../../src/temporal/sessions';
import { releaseWorkerEnvironments } from '../../src/temporal/worker';
import { decideSigned } from '../helpers/approver';
import { markedSleep, pidsRunning } from '../helpers/processes';
import { connectHarness, createTestWorker, expectCancelled, replaySessionHistory, sessionIdOf, testConfig, toolResults, withScriptedSession, type Harness } from '../helpers/session-harness';
import { waitFor } from '../helpers/wait';

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(async () => {
  await harness.close();
});

async function onePendingApproval(handle: SessionHandle): Promise<PendingApproval> {
  let pending: PendingApproval[] = [];
  await waitFor(async () => (pending = await handle.query(pendingApprovalsQuery)).length >= 1, { timeoutMs: 30_000, what: 'a pending approval' });
  return pending[0]!;
}

const SUMMARY_SCRIPT = `
const lines = [];
for (const name of ['a.txt', 'b.txt', 'c.txt']) {
  const file = await read_file(name);
  lines.push(name + ': ' + file.total_lines + ' lines');
}
await write_file({ path: 'summary.txt', content: lines.join('\\n') + '\\n' });
const cleanup = await terminal('mkdir -p scratch && rm -rf scratch');
console.log('summary written; cleanup exit ' + cleanup.exit_code);
`;

test('a script reads three files, writes a summary, and its dangerous command waits for approval', async () => {
  const script = { turns: [{ tool_calls: [{ name: 'execute_code', arguments: { code: SUMMARY_SCRIPT } }] }, { content: 'summarised' }] };
  await withScriptedSession(harness, { script }, async ({ handle, store, model, config }) => {
    const cwd = config.session.cwd;
    writeFileSync(path.join(cwd, 'a.txt'), 'one\n');
    writeFileSync(path.join(cwd, 'b.txt'), 'one\ntwo\n');
    writeFileSync(path.join(cwd, 'c.txt'), 'one\ntwo\nthree\n');

    // The script's rm -rf waits at the gate like any call, named as the script's call.
    const pending = await onePendingApproval(handle);
    expect(pending).toMatchObject({ toolCallId: 'call_0_0.code-4', tool: 'terminal' });
    expect(pending.command).toContain('rm -rf scratch');
    expect(existsSync(path.join(cwd, 'summary.txt'))).toBe(true);
    await decideSigned(handle, config, { approvalId: pending.approvalId, choice: 'once' });

    expect(await handle.result()).toMatchObject({ status: 'completed', answer: 'summarised' });
    expect(readFileSync(path.join(cwd, 'summary.txt'), 'utf8')).toBe('a.txt: 1 lines\nb.txt: 2 lines\nc.txt: 3 lines\n');
    const results = await toolResults(store, handle);
    const scriptResult = results.find((result) => 'tool_calls_made' in result);
    expect(scriptResult).toMatchObject({ status: 'success', output: 'summary written; cleanup exit 0\n', tool_calls_made: 5 });

    // Every inner call is recorded: its request (a named, nested record) and its result.
    const transcript = await store.getMessages(sessionIdOf(handle));
    const requests = transcript.filter((message) => message.role === 'assistant' && message.name === 'execute_code');
    expect(requests.map((message) => message.toolCalls?.[0]?.name)).toEqual(['read_file', 'read_file', 'read_file', 'write_file', 'terminal']);
    const innerResults = transcript.filter((message) => message.role === 'tool' && message.toolCallId?.startsWith('call_0_0.code-'));
    expect(innerResults).toHaveLength(5);
    expect(JSON.parse(innerResults[4]!.content!)).toMatchObject({ exit_code: 0, approval: expect.stringContaining('approved by the user') });

    // The model read the script's result, not the nested calls.
    const secondRequest = model.requests[1]!;
    expect(secondRequest.messages.filter((message) => message.role === 'assistant')).toHaveLength(1);
    expect(secondRequest.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_0_0' });
    // The recorded history replays against the workflow code with the same decisions.
    await replaySessionHistory(handle);
  });
});

test('a script cannot call a tool the session does not have, and a failing script reports its error', async () => {
  const code = `const result = await tools.read_file('nope.txt');\nconsole.log(JSON.stringify(result));\nthrow new Error('script broke');`;
  const script = { turns: [{ tool_calls: [{ name: 'execute_code', arguments: { code } }] }, { content: 'done' }] };
  await withScriptedSession(harness, { script, config: { session: { toolsets: ['code_execution', 'terminal'] } } }, async ({ handle, store }) => {
    expect(await handle.result()).toMatchObject({ status: 'completed' });
    const [result] = await toolResults(store, handle);
    // read_file is not this session's: the script never heard of it (tools.read_file is undefined).
    expect(result).toMatchObject({ status: 'error', tool_calls_made: 0 });
    expect(String(result!.error)).toContain('TypeError');
  });
});

test("a script's terminal runs in the foreground only: background and pty are refused, background: false is fine", async () => {
  const code = [
    `const background = await terminal({ command: 'sleep 30', background: true });`,
    `const pty = await terminal({ command: 'echo in-a-pty', pty: true });`,
    `const plain = await terminal({ command: 'echo plain', background: false });`,
    `console.log(JSON.stringify({ background, pty, plain }));`,
  ].join('\n');
  const script = { turns: [{ tool_calls: [{ name: 'execute_code', arguments: { code } }] }, { content: 'done' }] };
  await withScriptedSession(harness, { script, config: { session: { toolsets: ['code_execution', 'terminal'] } } }, async ({ handle, store }) => {
    expect(await handle.result()).toMatchObject({ status: 'completed' });
    const [result] = await toolResults(store, handle);
    const printed = JSON.parse(String(result!.output)) as Record<string, { error?: string; output?: string }>;
    expect(printed.background?.error).toMatch(/foreground only: background may not be set/);
    expect(printed.pty?.error).toMatch(/foreground only: pty may not be set/);
    expect(printed.plain?.output).toBe('plain');
  });
});

test("a script holds none of the worker's activity slots: on a worker of one slot its own tool calls still run", async () => {
  // Held in its activity, the script kept the only slot while its calls waited for one: for ever,
  // since the time it spends waiting for its calls does not count towards its timeout.
  const code = `const file = await read_file('a.txt');\nconst echoed = await terminal('echo inner-call-ran');\nconsole.log(file.total_lines + ' ' + echoed.output);`;
  const script = { turns: [{ tool_calls: [{ name: 'execute_code', arguments: { code } }] }, { content: 'done' }] };
  await withScriptedSession(harness, { script, config: { worker: { max_concurrent_activities: 1 } } }, async ({ handle, store, config }) => {
    writeFileSync(path.join(config.session.cwd, 'a.txt'), 'one\ntwo\n');
    await waitFor(async () => (await toolResults(store, handle)).some((result) => 'tool_calls_made' in result), { timeoutMs: 60_000, what: "the script's result" });
    expect(await handle.result()).toMatchObject({ status: 'completed', answer: 'done' });
    const [result] = await toolResults(store, handle);
    expect(result).toMatchObject({ status: 'success', output: '2 inner-call-ran\n', tool_calls_made: 2 });
    await replaySessionHistory(handle);
  });
});

/** A script that waits for a `sleep` of its own, found on this machine by its command line. */
function sleepingScript(sleep: string): string {
  const [command, seconds] = sleep.split(' ');
  return `await new Promise((resolve) => require('node:child_process').spawn('${command}', ['${seconds}'], { stdio: 'ignore' }).on('exit', resolve));\nconsole.log('slept');`;
}

test('cancelling a session ends its running script, which waits outside any activity slot', async () => {
  const sleep = markedSleep(60);
  const script = { turns: [{ tool_calls: [{ name: 'execute_code', arguments: { code: sleepingScript(sleep) } }] }, { content: 'done' }] };
  await withScriptedSession(harness, { script }, async ({ handle, store }) => {
    await waitFor(() => pidsRunning(sleep).length > 0, { timeoutMs: 30_000, what: 'the script to start' });
    await handle.cancel();
    await waitFor(() => pidsRunning(sleep).length === 0, { timeoutMs: 10_000, what: 'the script to be killed' });
    await expectCancelled(handle, store);
  });
});

test('a cancelled script cannot leave a process behind: one it started in a session of its own dies with it', async () => {
  const sleep = markedSleep(60);
  const [command, seconds] = sleep.split(' ');
  // Its own process group and session, unwaited for: out of reach of a kill of the script's group.
  const code = `require('node:child_process').spawn('setsid', ['${command}', '${seconds}'], { stdio: 'ignore', detached: true }).unref();\nawait new Promise(() => undefined);`;
  const script = { turns: [{ tool_calls: [{ name: 'execute_code', arguments: { code } }] }, { content: 'done' }] };
  await withScriptedSession(harness, { script }, async ({ handle, store }) => {
    await waitFor(() => pidsRunning(sleep).length > 0, { timeoutMs: 30_000, what: 'the escaped process to start' });
    await handle.cancel();
    await waitFor(() => pidsRunning(sleep).length === 0, { timeoutMs: 10_000, what: 'the escaped process to be killed' });
    await expectCancelled(handle, store);
  });
});

/**
 * Runs a script that sleeps for `sleep` on a first worker, stops that worker (with a grace time of
 * `graceSeconds`) while the script runs, and lets a second worker finish the session.
 * Returns what the model was told of the script.
 */
async function stopWorkerDuringScript(sleep: string, graceSeconds: number, whileStopping: (handle: SessionHandle) => Promise<void>) {
  const script = { turns: [{ tool_calls: [{ name: 'execute_code', arguments: { code: sleepingScript(sleep) } }] }, { content: 'heard' }] };
  const model = await startScriptedModelServer({ script });
  const config = testConfig({ model: { base_url: model.url }, worker: { shutdown_grace_seconds: graceSeconds } });
  const first = await createTestWorker(harness, config);
  try {
    const handle = await first.worker.runUntil(async () => {
      const started = await startSession(harness.client, { task: 'a script across workers', config });
      await waitFor(() => pidsRunning(sleep).length > 0, { timeoutMs: 30_000, what: 'the script to start' });
      return started;
    });
    await Promise.all([releaseWorkerEnvironments(first.worker), whileStopping(handle)]);
    const second = await createTestWorker(harness, config, first.store);
    const result = await second.worker.runUntil(() => handle.result());
    await releaseWorkerEnvironments(second.worker);
    expect(result).toMatchObject({ status: 'completed', answer: 'heard' });
    expect(pidsRunning(sleep)).toEqual([]);
    return JSON.parse(String(model.requests[1]?.messages.at(-1)?.content)) as Record<string, unknown>;
  } finally {
    await model.close();
    await first.store.close();
  }
}

test('a worker that stops kills a script still running after its grace time and gives the call back: the next worker reports it interrupted', async () => {
  const sleep = markedSleep(60);
  const told = await stopWorkerDuringScript(sleep, 1, async (handle) => {
    await waitFor(() => pidsRunning(sleep).length === 0, { timeoutMs: 10_000, what: 'the script to be killed' });
    // Given back at once (a failed attempt, to be retried), not after a heartbeat timeout.
    const scriptCall = async () => (await handle.describe()).raw.pendingActivities?.find((activity) => activity.activityType?.name === 'executeTool');
    await waitFor(async () => /execute_code script stopped/.test((await scriptCall())?.lastFailure?.message ?? ''), { timeoutMs: 10_000, what: 'the call given back' });
  });
  // The retry knows the script had started, so it does not run it again.
  expect(told).toMatchObject({ status: 'interrupted' });
  expect(told.error).toMatch(/worker running this execute_code call stopped/);
});

test('a worker that stops lets a running script end within its grace time, as it does a running command', async () => {
  const told = await stopWorkerDuringScript(markedSleep(2), 30, async () => undefined);
  expect(told).toMatchObject({ status: 'success', output: 'slept\n' });
});

test('a worker runs at most worker.max_concurrent_scripts scripts at once; the others wait for one to end', async () => {
  const sleep = markedSleep(2);
  const script = { turns: [{ tool_calls: [{ name: 'execute_code', arguments: { code: sleepingScript(sleep) } }] }, { content: 'slept' }] };
  const model = await startScriptedModelServer({ script });
  const config = testConfig({ model: { base_url: model.url }, worker: { max_concurrent_scripts: 1 } });
  const { worker, store } = await createTestWorker(harness, config);
  try {
    await worker.runUntil(async () => {
      const handles = await Promise.all([1, 2].map((n) => startSession(harness.client, { task: `script ${n}`, config })));
      let ended = false;
      const results = Promise.all(handles.map((handle) => handle.result())).finally(() => (ended = true));
      let mostAtOnce = 0;
      const deadline = Date.now() + 60_000;
      while (!ended && Date.now() < deadline) {
        mostAtOnce = Math.max(mostAtOnce, pidsRunning(sleep).length);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect(await results).toMatchObject([{ status: 'completed' }, { status: 'completed' }]);
      expect(mostAtOnce).toBe(1);
      for (const handle of handles) expect(await toolResults(store, handle)).toMatchObject([{ status: 'success', output: 'slept\n' }]);
    });
  } finally {
    await releaseWorkerEnvironments(worker);
    await model.close();
    await store.close();
  }
});
