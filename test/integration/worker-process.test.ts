// A worker as its own process (`node dist/worker.js`): it serves sessions started elsewhere, and
// SIGTERM drains it gracefully (a running tool finishes, another worker carries the session on).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ModelScriptInput } from '../../src/model/model-script';
import type { SessionResult } from '../../src/workflows/session-types';
import { CliTestbed, jsonLines, requireBuild, withTimeout, type CliSandbox } from '../helpers/cli';
import { waitFor } from '../helpers/wait';
import { connectHarness, type Harness } from '../helpers/session-harness';

requireBuild();

const SHUTDOWN_GRACE_SECONDS = 5;

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(async () => {
  await harness.close();
});

const testbed = new CliTestbed();
afterEach(() => testbed.cleanup());

function workerSandbox(script: ModelScriptInput): Promise<CliSandbox> {
  return testbed.sandbox({ script, env: { HERMES__WORKER__SHUTDOWN_GRACE_SECONDS: String(SHUTDOWN_GRACE_SECONDS) } });
}

/** `run --detach --no-worker`: returns the started session's ids. */
async function startDetached(sandbox: CliSandbox, task: string): Promise<{ sessionId: string; workflowId: string }> {
  const result = await testbed.runCli(sandbox, ['run', '--json', '--detach', '--no-worker', task], 15_000);
  expect(result.code).toBe(0);
  const events = jsonLines(result.stdout);
  expect(events).toEqual([expect.objectContaining({ type: 'session_started' })]);
  return events[0] as { sessionId: string; workflowId: string };
}

function sessionResult(workflowId: string, timeoutMs: number): Promise<SessionResult> {
  return withTimeout(harness.client.workflow.getHandle(workflowId).result() as Promise<SessionResult>, timeoutMs, () =>
    `session ${workflowId} did not finish within ${timeoutMs} ms`,
  );
}

test('a detached session waits for a worker process, which completes it and exits 0 on SIGTERM', async () => {
  const sandbox = await workerSandbox({
    turns: [{ tool_calls: [{ name: 'terminal', arguments: { command: 'echo served' } }] }, { content: 'Served by the worker.' }],
  });
  const { sessionId, workflowId } = await startDetached(sandbox, 'serve me later');
  // Nothing serves the task queue yet, so the model has not been asked anything.
  expect(sandbox.model.requests).toHaveLength(0);

  const worker = testbed.worker(sandbox);
  expect(await sessionResult(workflowId, 30_000)).toMatchObject({ status: 'completed', answer: 'Served by the worker.', toolCalls: 1 });
  const shown = await testbed.runCli(sandbox, ['show', sessionId, '--json'], 15_000);
  expect(JSON.parse(shown.stdout)).toMatchObject({ session: { sessionId, status: 'completed', answer: 'Served by the worker.' } });

  const stopRequestedAt = Date.now();
  worker.signal('SIGTERM');
  const exit = await worker.waitForExit((SHUTDOWN_GRACE_SECONDS + 10) * 1000);
  expect({ code: exit.code, signal: exit.signal }).toEqual({ code: 0, signal: null });
  expect(Date.now() - stopRequestedAt).toBeLessThan(SHUTDOWN_GRACE_SECONDS * 1000);
});

test('SIGTERM lets a running tool finish, and a new worker completes the session', async () => {
  const sandbox = await workerSandbox({
    turns: [{ tool_calls: [{ name: 'terminal', arguments: { command: 'touch started; sleep 3; echo run >> runs.log; echo finished' } }] }, { content: 'Survived the restart.' }],
  });
  const { sessionId, workflowId } = await startDetached(sandbox, 'outlive a worker');
  const firstWorker = testbed.worker(sandbox);

  // The command's own mark, not a query: a query answered late on a busy machine could miss the
  // seconds the tool runs. A worker process may take long to start there, hence the wait.
  await waitFor(() => existsSync(path.join(sandbox.cwd, 'started')), { timeoutMs: 60_000, intervalMs: 50, what: 'the tool to start' });
  firstWorker.signal('SIGTERM');
  // Sent while the command still ran.
  expect(existsSync(path.join(sandbox.cwd, 'runs.log'))).toBe(false);
  const exit = await firstWorker.waitForExit((SHUTDOWN_GRACE_SECONDS + 10) * 1000);
  expect({ code: exit.code, signal: exit.signal }).toEqual({ code: 0, signal: null });

  // The tool ran to its end and its result is in the transcript, although its worker stopped.
  const shown = await testbed.runCli(sandbox, ['show', sessionId, '--json'], 15_000);
  const { messages } = JSON.parse(shown.stdout) as { messages: { role: string; content: string | null }[] };
  const toolResults = messages.filter((message) => message.role === 'tool').map((message) => JSON.parse(message.content ?? '{}') as unknown);
  expect(toolResults).toEqual([expect.objectContaining({ output: 'finished', exit_code: 0 })]);

  const secondWorker = testbed.worker(sandbox);
  expect(await sessionResult(workflowId, 30_000)).toMatchObject({ status: 'completed', answer: 'Survived the restart.', toolCalls: 1 });
  // The tool ran once: the new worker did not run it again.
  expect(readFileSync(path.join(sandbox.cwd, 'runs.log'), 'utf8')).toBe('run\n');
  secondWorker.signal('SIGTERM');
  expect((await secondWorker.waitForExit((SHUTDOWN_GRACE_SECONDS + 10) * 1000)).code).toBe(0);
});
