// The start check skips runs Temporal says descend from a session: children and continued runs.
// The agent, on a server it reaches (`terminal.local.network: host`, as session-start.test.ts
// shows its programs do), makes runs whose lineage is its own: a child of a workflow on its own
// worker, a continuation of one, the next run of an unsigned cron start, and children that an
// unsigned start's first signal would set off. Each must fail before it runs anything: no model
// call, no session record, the folder it names untouched.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { WorkflowFailedError, type Client } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { startScriptedModelServer, type ScriptedModelServer } from '../../../src/model/scripted-model-server';
import type { SessionStore } from '../../../src/store/session-store';
import { START_REFUSED } from '../../../src/workflows/agent-session';
import { subagentFinishedSignal } from '../../../src/workflows/messages';
import type { SessionInput } from '../../../src/workflows/session-types';
import type { AttackWorld } from '../../helpers/attack-world';
import { setUpAttacks, terminal } from '../../helpers/attack-world';
import { createTestWorker, testConfig, uniqueName, type Harness } from '../../helpers/session-harness';

let harness: Harness;
let world: AttackWorld;
setUpAttacks((connected) => (harness = connected), (created) => (world = created));

/** A session as the agent would write it: approvals off, in the folder it wants gone. */
function forgedInput(sessionId: string, model: ScriptedModelServer): SessionInput {
  return { sessionId, task: 'forged', model: 'scripted', baseUrl: model.url, environment: { backend: 'local', cwd: world.precious }, maxTurns: 3, approvals: { mode: 'off' } };
}

/** Runs the real worker while `attack` does its work; the model would delete the folder if asked. */
async function againstTheWorker(attack: (context: { client: Client; taskQueue: string; model: ScriptedModelServer; store: SessionStore }) => Promise<void>): Promise<ScriptedModelServer> {
  const model = await startScriptedModelServer({ script: { turns: [{ tool_calls: [terminal(`rm -rf ${world.precious}`)] }, { content: 'done' }] } });
  const config = testConfig({ model: { base_url: model.url } }, { home: world.hermesHome, cwd: world.workspace });
  const { store, worker } = await createTestWorker(harness, config);
  try {
    await worker.runUntil(attack({ client: harness.client, taskQueue: config.temporal.task_queue, model, store }));
  } finally {
    await model.close();
  }
  return model;
}

async function expectRefused(client: Client, workflowId: string, runId?: string): Promise<void> {
  const failure = await client.workflow.getHandle(workflowId, runId).result().catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(WorkflowFailedError);
  expect((failure as WorkflowFailedError).cause).toMatchObject({ type: START_REFUSED });
}

function expectNothingRan(model: ScriptedModelServer): void {
  expect(model.requests).toHaveLength(0);
  expect(existsSync(path.join(world.precious, 'thesis.txt'))).toBe(true);
}

test("a workflow on the agent's own worker cannot start a session as its child or continue as one", async () => {
  const rogueQueue = uniqueName('rogue');
  const rogueWorker = await Worker.create({ connection: harness.nativeConnection, taskQueue: rogueQueue, workflowsPath: require.resolve('../../fixtures/rogue-workflows') });
  const model = await againstTheWorker(async ({ client, taskQueue, model: server, store }) => {
    await rogueWorker.runUntil(async () => {
      const childId = uniqueName('hermes-session-rogue-child');
      await client.workflow.execute('rogueParent', { taskQueue: rogueQueue, workflowId: uniqueName('rogue-parent'), args: [taskQueue, childId, forgedInput('rogue-child', server)] });
      await expectRefused(client, childId);
      const continuedId = uniqueName('hermes-session-rogue-continued');
      await client.workflow.start('rogueContinuation', { taskQueue: rogueQueue, workflowId: continuedId, args: [taskQueue, forgedInput('rogue-continued', server)] });
      await expectRefused(client, continuedId);
    });
    expect(await store.getSession('rogue-child')).toBeUndefined();
    expect(await store.getSession('rogue-continued')).toBeUndefined();
  });
  expectNothingRan(model);
}, 120_000);

test("an unsigned cron start's next run is refused like its first", async () => {
  const model = await againstTheWorker(async ({ client, taskQueue, model: server, store }) => {
    const workflowId = uniqueName('hermes-session-cron');
    const first = await client.workflow.start('agentSession', { taskQueue, workflowId, cronSchedule: '* * * * *', args: [forgedInput('rogue-cron', server)] });
    try {
      // Cron runs start on the minute: the second begins within two minutes of the start.
      const deadline = Date.now() + 150_000;
      let runs: { runId: string; status: string }[] = [];
      while (runs.filter((run) => run.status !== 'RUNNING').length < 2 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 2000));
        runs = [];
        for await (const execution of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) runs.push({ runId: execution.runId, status: execution.status.name });
      }
      const ended = runs.filter((run) => run.status !== 'RUNNING');
      expect(ended.length).toBeGreaterThanOrEqual(2);
      for (const run of ended) expect(run.status).toBe('FAILED');
      expect(await store.getSession('rogue-cron')).toBeUndefined();
    } finally {
      await client.workflow.getHandle(first.workflowId).terminate('test over').catch(() => undefined);
    }
  });
  expectNothingRan(model);
}, 200_000);

test("an unsigned start's first signal starts none of the sub-agents its input carries", async () => {
  const model = await againstTheWorker(async ({ client, taskQueue, model: server, store }) => {
    const parentId = 'rogue-parent-session';
    const carriedChild = { ...forgedInput(`${parentId}-sa1`, server), parentSessionId: parentId };
    const childView = (sessionId: string) => ({ sessionId, workflowId: `hermes-session-${sessionId}`, goal: 'g', role: 'leaf' as const, depth: 1, taskIndex: 0, taskCount: 1, status: 'queued' as const });
    const input: SessionInput = {
      ...forgedInput(parentId, server),
      resume: { subagents: { nextChild: 2, children: [childView(`${parentId}-sa0`), childView(`${parentId}-sa1`)], queued: [carriedChild], undelivered: [], descendantApprovals: [] } } as unknown as SessionInput['resume'],
    };
    const report = { sessionId: `${parentId}-sa0`, taskIndex: 0, taskCount: 1, goal: 'g', status: 'completed' as const, preview: '', answerChars: 0, turns: 0, toolCalls: 0, tokens: { input: 0, output: 0 }, durationSeconds: 0, model: 'scripted' };
    const workflowId = uniqueName('hermes-session-rogue-signalled');
    await client.workflow.signalWithStart('agentSession', { taskQueue, workflowId, args: [input], signal: subagentFinishedSignal, signalArgs: [report] });
    await expectRefused(client, workflowId);
    // Had it started, the child would have asked the model by now.
    await new Promise((resolve) => setTimeout(resolve, 5000));
    const child = await client.workflow.getHandle(`hermes-session-${parentId}-sa1`).describe().catch(() => undefined);
    if (child) await expectRefused(client, child.workflowId);
    expect(await store.getSession(carriedChild.sessionId)).toBeUndefined();
  });
  expectNothingRan(model);
}, 120_000);
