// The CLI with no worker serving a session: `pending` and `approve` say so within seconds, a
// decision is still recorded (as a signed signal the session applies once a worker returns), and
// commands end on SIGTERM instead of hanging.
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { approvalAuditQuery, pendingApprovalsQuery } from '../../src/approval-signals/definitions';
import { PENDING_APPROVALS_MEMO } from '../../src/approval-signals/pending-approvals-memo';
import { startScriptedModelServer } from '../../src/model/scripted-model-server';
import { startSession } from '../../src/temporal/sessions';
import { CLI_ENTRY, requireBuild, SpawnedProcess } from '../helpers/cli';
import { connectHarness, createTestWorker, sessionIdOf, testConfig, toolResults, uniqueName, type Harness } from '../helpers/session-harness';
import { waitFor } from '../helpers/wait';

let harness: Harness;
const spawned: SpawnedProcess[] = [];
beforeAll(async () => {
  requireBuild();
  harness = await connectHarness();
});
afterEach(async () => {
  for (const process of spawned.splice(0)) await process.stop();
});
afterAll(async () => {
  await harness.close();
});

function cli(home: string, args: string[], address = harness.address): SpawnedProcess {
  const child = new SpawnedProcess(`hermes-temporal ${args.join(' ')}`, [CLI_ENTRY, ...args], {
    cwd: home,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, HERMES_TEMPORAL_HOME: home, TEMPORAL_ADDRESS: address },
  });
  spawned.push(child);
  return child;
}

test('with the worker gone, pending shows what is asked and approve records a signed decision the session applies later', async () => {
  const model = await startScriptedModelServer({ script: { turns: [{ tool_calls: [{ name: 'terminal', arguments: { command: 'rm -rf precious' } }] }, { content: 'deleted' }] } });
  const config = testConfig({ model: { base_url: model.url } });
  mkdirSync(path.join(config.session.cwd, 'precious'));
  const first = await createTestWorker(harness, config);
  try {
    const running = first.worker.run();
    const handle = await startSession(harness.client, { task: 'clean up', config });
    await waitFor(async () => (await handle.query(pendingApprovalsQuery)).length === 1, { timeoutMs: 30_000, what: 'the pending approval' });
    first.worker.shutdown();
    await running;
    // The workflow itself keeps what it asks, for when no worker can answer a query.
    expect((await handle.describe()).memo?.[PENDING_APPROVALS_MEMO]).toEqual([expect.objectContaining({ approvalId: 'ap-1', command: 'rm -rf precious' })]);

    const sessionId = sessionIdOf(handle);
    const pending = await cli(config.home, ['pending', sessionId]).waitForExit(20_000);
    expect({ code: pending.code, stderr: pending.stderr }).toEqual({ code: 0, stderr: expect.stringMatching(/^note: /) });
    expect(pending.durationMs).toBeLessThan(15_000);
    expect(pending.stdout).toMatch(/ap-1 .*\n\s+rm -rf precious/);
    expect(pending.stderr).toMatch(new RegExp(`(No worker is polling task queue '${config.temporal.task_queue}'|no worker answered on task queue '${config.temporal.task_queue}').*shown as the workflow recorded them`));

    // SIGTERM ends a command that waits on the server, at once.
    const interrupted = cli(config.home, ['pending', sessionId]);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    interrupted.signal('SIGTERM');
    const ended = await interrupted.waitForExit(3000);
    expect(ended.signal ?? ended.code).toBeTruthy();
    expect(ended.durationMs).toBeLessThan(4000);

    const approve = await cli(config.home, ['approve', sessionId, 'ap-1', '--json']).waitForExit(20_000);
    expect({ code: approve.code, stderr: approve.stderr }).toMatchObject({ code: 0 });
    expect(approve.durationMs).toBeLessThan(15_000);
    expect(JSON.parse(approve.stdout)).toMatchObject({ sessionId, approvalId: 'ap-1', choice: 'once', recorded: 'signal' });
    expect(existsSync(path.join(config.session.cwd, 'precious'))).toBe(true);

    // A worker comes back: the recorded decision is checked (signature) and applied.
    const second = await createTestWorker(harness, config, first.store);
    const result = await second.worker.runUntil(async () => {
      const outcome = await handle.result();
      expect((await handle.query(approvalAuditQuery))).toEqual([expect.objectContaining({ approvalId: 'ap-1', outcome: 'decided', applied: 'once' })]);
      return outcome;
    });
    expect(result).toMatchObject({ status: 'completed', answer: 'deleted' });
    expect((await toolResults(first.store, handle))[0]).toMatchObject({ exit_code: 0 });
    expect(existsSync(path.join(config.session.cwd, 'precious'))).toBe(false);
  } finally {
    await model.close();
    await first.store.close();
  }
});

test('a session no worker ever ran: approve says within seconds that a worker must read what is asked', async () => {
  const config = testConfig({ temporal: { task_queue: uniqueName('nobody-polls') } });
  const handle = await startSession(harness.client, { task: 'never served', config });
  try {
    const approve = await cli(config.home, ['approve', sessionIdOf(handle), 'ap-1']).waitForExit(15_000);
    expect(approve.code).toBe(1);
    expect(approve.durationMs).toBeLessThan(10_000);
    expect(approve.stderr).toMatch(new RegExp(`No worker is polling task queue '${config.temporal.task_queue}' of session ${sessionIdOf(handle)}: start one with \`hermes-temporal worker\``));
    expect(approve.stderr).toMatch(/a worker must run to read it/);
  } finally {
    await handle.terminate('test over');
  }
});

test('against a server that does not answer, pending fails within seconds naming the address', async () => {
  const home = testConfig().home;
  const result = await cli(home, ['pending'], '127.0.0.1:1').waitForExit(20_000);
  expect(result.code).toBe(1);
  expect(result.durationMs).toBeLessThan(12_000);
  expect(result.stderr).toMatch(/Cannot reach the Temporal server at 127\.0\.0\.1:1 within 5 s/);
});

test('serve-approvals stops on SIGTERM', async () => {
  const home = testConfig().home;
  const server = new SpawnedProcess('serve-approvals', [CLI_ENTRY, 'serve-approvals', '--port', '0'], {
    cwd: home,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, HERMES_TEMPORAL_HOME: home, TEMPORAL_ADDRESS: harness.address, HERMES__APPROVALS__WEBHOOK__SECRET: 'a-secret-of-some-length-here' },
  });
  spawned.push(server);
  await server.waitForOutput(/Accepting signed approval decisions/, 20_000);
  server.signal('SIGTERM');
  const ended = await server.waitForExit(5000);
  expect(ended.code).toBe(0);
});
