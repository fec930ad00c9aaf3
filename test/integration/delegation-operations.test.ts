// Operating a delegation tree on the real server: a sub-agent's dangerous command is answered
// from the root's CLI; cancelling the root leaves nothing running; a worker killed mid-way loses
// nothing; reports reach the parent across continue-as-new; the parent's history stays small.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { WorkflowFailedError } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { statusQuery } from '../../src/workflows/messages';
import { CLI_ENTRY, requireBuild } from '../helpers/cli';
import { markedSleep, pidsRunning } from '../helpers/processes';
import { connectHarness, createTestWorker, sessionIdOf, testConfig, uniqueName, withScriptedSession, type Harness } from '../helpers/session-harness';
import { startScriptedModelServer } from '../../src/model/scripted-model-server';
import { startSession } from '../../src/temporal/sessions';
import { spawnWorkerProcess } from '../helpers/worker-process';
import { waitFor } from '../helpers/wait';

const run = promisify(execFile);

let harness: Harness;
beforeAll(async () => {
  requireBuild();
  harness = await connectHarness();
});
afterAll(async () => {
  await harness.close();
});

const repeat = (content: string, times: number) => Array.from({ length: times }, () => ({ content }));
const reportsIn = async (store: { getMessages(id: string): Promise<{ role: string; content: string | null }[]> }, sessionId: string) =>
  (await store.getMessages(sessionId))
    .filter((message) => message.role === 'user' && message.content?.startsWith('[SUBAGENT RESULT'))
    .map((message) => JSON.parse((message.content ?? '').split('\n')[1] ?? '{}') as Record<string, unknown>);

async function runningInTree(rootSessionId: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const workflow of harness.client.workflow.list({ query: `HermesRootSession = '${rootSessionId}' AND ExecutionStatus = 'Running'` })) ids.push(workflow.workflowId);
  return ids;
}

test("a sub-agent's dangerous command waits, shows on the root, and is approved with the root's id from the CLI", async () => {
  const script = {
    turns: [{ tool_calls: [{ name: 'delegate_task', arguments: { goal: 'cleaner: remove the scratch folder' } }] }, ...repeat('the child cleaned up', 3)],
    agents: [{ match: 'cleaner', turns: [{ tool_calls: [{ name: 'terminal', arguments: { command: 'rm -rf scratch' } }] }, { content: 'scratch removed' }] }],
  };
  await withScriptedSession(harness, { script, task: 'root: delegate a cleanup' }, async ({ handle, config, store }) => {
    mkdirSync(path.join(config.session.cwd, 'scratch', 'deep'), { recursive: true });
    const root = sessionIdOf(handle);
    // The root says a descendant waits, in its status query.
    await waitFor(async () => ((await handle.query(statusQuery)).descendantApprovals ?? []).length === 1, { timeoutMs: 30_000, what: 'the descendant approval on the root' });
    const [waiting] = (await handle.query(statusQuery)).descendantApprovals ?? [];
    expect(waiting?.sessionId).toBe(`${root}-sa0`);
    expect(waiting?.first).toContain('rm -rf scratch');
    // ... and in the UI's current-details line.
    const metadata = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
    expect(metadata.currentDetails).toContain(`A sub-agent awaits approval**: ${root}-sa0 \`ap-1`);
    expect(existsSync(path.join(config.session.cwd, 'scratch'))).toBe(true);

    const env = { PATH: process.env.PATH, HOME: process.env.HOME, HERMES_TEMPORAL_HOME: config.home, TEMPORAL_ADDRESS: harness.address };
    // `pending <root>` lists the whole tree's approvals (visibility may lag a moment).
    let rows: { sessionId: string; approvalId: string; command: string }[] = [];
    await waitFor(async () => {
      const { stdout } = await run(process.execPath, [CLI_ENTRY, 'pending', root, '--json'], { env, cwd: config.session.cwd, timeout: 30_000 });
      rows = JSON.parse(stdout) as typeof rows;
      return rows.length === 1;
    }, { timeoutMs: 20_000, what: 'the child approval in `pending <root>`' });
    expect(rows[0]).toMatchObject({ sessionId: `${root}-sa0`, approvalId: 'ap-1', command: 'rm -rf scratch' });

    // `approve <root> ap-1` finds the approval in the sub-agent and signs the decision for it.
    const { stdout } = await run(process.execPath, [CLI_ENTRY, 'approve', root, 'ap-1', '--json'], { env, cwd: config.session.cwd, timeout: 30_000 });
    expect(JSON.parse(stdout)).toMatchObject({ sessionId: `${root}-sa0`, approvalId: 'ap-1', applied: 'once' });
    expect(await handle.result()).toMatchObject({ status: 'completed' });
    expect(existsSync(path.join(config.session.cwd, 'scratch'))).toBe(false);
    expect(await reportsIn(store, root)).toEqual([expect.objectContaining({ status: 'completed', summary: 'scratch removed' })]);
    expect((await handle.query(statusQuery)).descendantApprovals).toEqual([]);
  });
});

test('cancelling the root cancels its sub-agents and kills their commands: nothing is left running', async () => {
  const sleeps = [markedSleep(120), markedSleep(120)];
  const script = {
    turns: [{ tool_calls: [{ name: 'delegate_task', arguments: { tasks: [{ goal: 'sleeper-0' }, { goal: 'sleeper-1' }] } }] }, ...repeat('waiting', 3)],
    agents: sleeps.map((command, index) => ({ match: `sleeper-${index}`, turns: [{ tool_calls: [{ name: 'terminal', arguments: { command } }] }, { content: 'slept' }] })),
  };
  await withScriptedSession(harness, { script, task: 'root: two sleepers' }, async ({ handle, store }) => {
    const root = sessionIdOf(handle);
    await waitFor(() => sleeps.every((command) => pidsRunning(command).length === 1), { timeoutMs: 30_000, what: 'both sub-agent commands running' });
    await handle.cancel();
    await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    await waitFor(() => sleeps.every((command) => pidsRunning(command).length === 0), { timeoutMs: 15_000, what: 'the sub-agent commands killed' });
    await waitFor(async () => (await runningInTree(root)).length === 0, { timeoutMs: 15_000, what: 'no workflow of the tree running' });
    for (const child of [`${root}-sa0`, `${root}-sa1`]) {
      expect((await harness.client.workflow.getHandle(`hermes-session-${child}`).describe()).status.name).toBe('CANCELLED');
      expect((await store.getSession(child))?.status).toBe('cancelled');
    }
  });
});

test('a worker killed while sub-agents run loses nothing: every child reports after another worker takes over', async () => {
  const model = await startScriptedModelServer({
    script: {
      turns: [{ tool_calls: [{ name: 'delegate_task', arguments: { tasks: [0, 1, 2].map((index) => ({ goal: `slow-${index}` })) } }] }, ...repeat('all reported', 4)],
      agents: [0, 1, 2].map((index) => ({
        match: `slow-${index}`,
        turns: [{ tool_calls: [{ name: 'terminal', arguments: { command: `sleep 3; echo slow-${index}` } }] }, { content: `slow-${index} finished` }],
      })),
    },
  });
  const config = testConfig({ model: { base_url: model.url } });
  const killed = spawnWorkerProcess({ address: harness.address, config, modelUrl: model.url });
  try {
    const handle = await startSession(harness.client, { task: 'root: three slow children', config });
    const root = sessionIdOf(handle);
    await waitFor(async () => ((await handle.query(statusQuery)).children ?? []).filter((child) => child.status === 'running').length === 3, { timeoutMs: 60_000, what: 'three running children' });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    killed.kill('SIGKILL');
    const { worker, store } = await createTestWorker(harness, config);
    try {
      const result = await worker.runUntil(handle.result());
      expect(result.status).toBe('completed');
      const reports = await reportsIn(store, root);
      expect(reports.map((report) => report.task_index).sort()).toEqual([0, 1, 2]);
      expect(reports.every((report) => report.status === 'completed')).toBe(true);
    } finally {
      await store.close();
    }
  } finally {
    killed.kill('SIGKILL');
    await model.close();
  }
});

test('reports reach the parent across continue-as-new, and the plan (todo) survives it', async () => {
  const script = {
    turns: [
      {
        tool_calls: [
          { name: 'todo', arguments: { todos: [{ id: '1', content: 'delegate', status: 'in_progress' }, { id: '2', content: 'summarise', status: 'pending' }] } },
          { name: 'delegate_task', arguments: { tasks: [{ goal: 'late-0' }, { goal: 'late-1' }] } },
        ],
      },
      { tool_calls: [{ name: 'todo', arguments: { todos: [{ id: '1', status: 'completed' }], merge: true } }] },
      ...repeat('both reported', 4),
    ],
    agents: [0, 1].map((index) => ({ match: `late-${index}`, turns: [{ tool_calls: [{ name: 'terminal', arguments: { command: 'sleep 2' } }] }, { content: `late-${index} ok` }] })),
  };
  await withScriptedSession(harness, { script, task: 'root: continue as new', limits: { turnsPerRun: 1 } }, async ({ handle, store }) => {
    expect(await handle.result()).toMatchObject({ status: 'completed' });
    const root = sessionIdOf(handle);
    expect((await reportsIn(store, root)).map((report) => report.summary).sort()).toEqual(['late-0 ok', 'late-1 ok']);
    const todoResults = (await store.getMessages(root)).filter((message) => message.name === 'todo').map((message) => JSON.parse(message.content ?? '{}') as { todos: unknown[]; summary: unknown });
    expect(todoResults[1]).toEqual({
      todos: [{ id: '1', content: 'delegate', status: 'completed' }, { id: '2', content: 'summarise', status: 'pending' }],
      summary: { total: 2, pending: 1, in_progress: 0, completed: 1, cancelled: 0 },
    });
    // More than one run: the children outlived the run that started them.
    let runs = 0;
    for await (const _run of harness.client.workflow.list({ query: `WorkflowId = '${handle.workflowId}'` })) runs += 1;
    expect(runs).toBeGreaterThan(1);
    expect((await handle.query(statusQuery)).todos).toHaveLength(2);
  });
});

test('32 children of 3 turns each grow the parent history by a few events per child, never by their transcripts', async () => {
  const count = 32;
  const big = 'x'.repeat(4000);
  const script = {
    turns: [{ tool_calls: [{ name: 'delegate_task', arguments: { tasks: Array.from({ length: count }, (_, index) => ({ goal: `many-${index}:` })) } }] }, ...repeat('all done', count + 1)],
    agents: [
      {
        match: 'many-',
        turns: [
          { tool_calls: [{ name: 'terminal', arguments: { command: `printf '${big}'` } }] },
          { tool_calls: [{ name: 'terminal', arguments: { command: `printf '${big}'` } }] },
          { content: `done ${big.slice(0, 100)}` },
        ],
      },
    ],
  };
  const config = { delegation: { max_concurrent_children: count }, worker: { max_concurrent_workflow_tasks: 40 } };
  await withScriptedSession(harness, { script, config, task: uniqueName('root: many children') }, async ({ handle, store }) => {
    expect(await handle.result()).toMatchObject({ status: 'completed' });
    expect(await reportsIn(store, sessionIdOf(handle))).toHaveLength(count);
    const history = await handle.fetchHistory();
    // As the server stores it (protobuf), the measure of Temporal's history size limits.
    const bytes = temporal.api.history.v1.History.encode(history).finish().length;
    const byType = new Map<string, number>();
    for (const event of history.events ?? []) {
      const name = String(temporal.api.enums.v1.EventType[event.eventType ?? 0]);
      byType.set(name, (byType.get(name) ?? 0) + temporal.api.history.v1.HistoryEvent.encode(event).finish().length);
    }
    console.log(`parent history: ${bytes} bytes`, [...byType.entries()].sort((a, b) => b[1] - a[1]).slice(0, 6));
    expect(bytes).toBeLessThan(200_000);
  });
}, 180_000);

test('a sub-agent past delegation.child_timeout_seconds is cancelled, its command killed, and reported as timed out', async () => {
  const sleep = markedSleep(300);
  const script = {
    turns: [{ tool_calls: [{ name: 'delegate_task', arguments: { goal: 'stuck: wait forever' } }] }, ...repeat('the child timed out', 3)],
    agents: [{ match: 'stuck', turns: [{ tool_calls: [{ name: 'terminal', arguments: { command: sleep, timeout: 600 } }] }, { content: 'never' }] }],
  };
  // 30 s is the smallest limit the original accepts (smaller positive values are raised to it).
  await withScriptedSession(harness, { script, task: 'root: one child with a time limit', config: { delegation: { child_timeout_seconds: 5 } } }, async ({ handle, store }) => {
    await waitFor(() => pidsRunning(sleep).length === 1, { timeoutMs: 30_000, what: 'the child command running' });
    expect(await handle.result()).toMatchObject({ status: 'completed' });
    // Cancellation reaches the command through its activity's heartbeat, within seconds.
    await waitFor(() => pidsRunning(sleep).length === 0, { timeoutMs: 15_000, what: 'the child command killed' });
    const [report] = await reportsIn(store, sessionIdOf(handle));
    expect(report).toMatchObject({ status: 'timed_out', error: expect.stringMatching(/time limit of 30 s/) });
    expect(Number(report?.duration_seconds)).toBeGreaterThanOrEqual(30);
    expect((await store.getSession(`${sessionIdOf(handle)}-sa0`))?.status).toBe('timed_out');
  });
}, 120_000);

test('with delegation.subagent_auto_approve a sub-agent\'s dangerous command runs without a human; the hardline floor still blocks', async () => {
  const script = {
    turns: [{ tool_calls: [{ name: 'delegate_task', arguments: { goal: 'janitor: clean up' } }] }, ...repeat('cleaned', 3)],
    agents: [
      {
        match: 'janitor',
        turns: [
          { tool_calls: [{ name: 'terminal', arguments: { command: 'rm -rf scratch' } }] },
          { tool_calls: [{ name: 'terminal', arguments: { command: 'rm -rf /' } }] },
          { content: 'janitor done' },
        ],
      },
    ],
  };
  await withScriptedSession(harness, { script, task: 'root: auto-approved child', config: { delegation: { subagent_auto_approve: true } } }, async ({ handle, config, store }) => {
    mkdirSync(path.join(config.session.cwd, 'scratch'), { recursive: true });
    expect(await handle.result()).toMatchObject({ status: 'completed' });
    expect(existsSync(path.join(config.session.cwd, 'scratch'))).toBe(false);
    const childResults = (await store.getMessages(`${sessionIdOf(handle)}-sa0`)).filter((message) => message.role === 'tool').map((message) => JSON.parse(message.content ?? '{}') as Record<string, unknown>);
    expect(childResults[0]).toMatchObject({ exit_code: 0 });
    expect(childResults[1]).toMatchObject({ status: 'blocked' });
    expect(await reportsIn(store, sessionIdOf(handle))).toEqual([expect.objectContaining({ status: 'completed', summary: 'janitor done' })]);
  });
});

test('a sub-agent terminated after its parent continued as new is noticed and reported, instead of being waited for forever', async () => {
  const sleep = markedSleep(300);
  const script = {
    turns: [{ tool_calls: [{ name: 'delegate_task', arguments: { goal: 'doomed: sleep a long time' } }] }, ...repeat('noticed', 3)],
    agents: [{ match: 'doomed', turns: [{ tool_calls: [{ name: 'terminal', arguments: { command: sleep, timeout: 600 } }] }, { content: 'never' }] }],
  };
  await withScriptedSession(harness, { script, task: 'root: outlived child', limits: { turnsPerRun: 1, subagentCheckSeconds: 2 } }, async ({ handle, store }) => {
    const root = sessionIdOf(handle);
    await waitFor(() => pidsRunning(sleep).length === 1, { timeoutMs: 30_000, what: 'the child command running' });
    await harness.client.workflow.getHandle(`hermes-session-${root}-sa0`).terminate('operator stopped it');
    expect(await handle.result()).toMatchObject({ status: 'completed' });
    const [report] = await reportsIn(store, root);
    expect(report).toMatchObject({ status: 'failed', error: "The sub-agent's workflow ended (terminated) without reporting" });
  });
});
