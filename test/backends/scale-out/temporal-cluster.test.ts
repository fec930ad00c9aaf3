// Scaled out for real: a multi-service Temporal server on PostgreSQL (scripts/services/temporal-server.sh),
// three worker processes on one task queue plus one on a dedicated tools queue, all sharing the
// PostgreSQL session store. 20 concurrent sessions make parallel tool calls and wait for approvals
// answered by the `approve` CLI; mid-command one worker is SIGKILLed, another drained with SIGTERM,
// and the server is restarted. Every session completes, nothing is lost, no started command re-runs.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { pendingApprovalsQuery } from '../../../src/approval-signals/definitions';
import { startScriptedModelServer, type ScriptedModelServer } from '../../../src/model/scripted-model-server';
import { PostgresSessionStore } from '../../../src/store/postgres-session-store';
import { startSession, type SessionHandle } from '../../../src/temporal/sessions';
import { statusQuery } from '../../../src/workflows/messages';
import { requireBuild, withTimeout, type SpawnedProcess } from '../../helpers/cli';
import { descendantPids } from '../../helpers/processes';
import { describeWithService } from '../../helpers/services';
import { sandboxVisibleTempDir, sessionIdOf, testConfig, toolResults, uniqueName } from '../../helpers/session-harness';
import { approveFromCli, deploymentEnv, mapLimited, restartTemporalServer, startWorkerProcess, type Deployment } from '../../helpers/scale-out';
import { waitFor } from '../../helpers/wait';

const SESSIONS = 20;
const TOOLS_QUEUE_SESSIONS = 5;
const SHUTDOWN_GRACE_SECONDS = 30;
// Blocks (at most 3 minutes) until the test creates the file `go` in the session's folder, so that
// all 20 are mid-command when workers die.
const SLOW_COMMAND = 'echo started >> ran.log; for attempt in $(seq 1800); do test -e go && break; sleep 0.1; done; echo finished >> ran.log';
// Per session: three parallel read-only calls, a dangerous one (approval), the slow one, one more.
const SCRIPT = {
  turns: [
    {
      tool_calls: [
        { name: 'terminal', arguments: { command: 'echo one' } },
        { name: 'terminal', arguments: { command: 'echo two' } },
        { name: 'terminal', arguments: { command: 'pwd' } },
      ],
    },
    { tool_calls: [{ name: 'terminal', arguments: { command: 'mkdir -p reports && touch reports/x && rm -rf reports' } }] },
    { tool_calls: [{ name: 'terminal', arguments: { command: SLOW_COMMAND } }] },
    { tool_calls: [{ name: 'terminal', arguments: { command: 'echo after >> ran.log' } }] },
    { content: 'All done.' },
  ],
};
const TOOL_CALLS = 6;
const TEST_TIMEOUT_MS = 480_000;

// Progress with elapsed seconds on stderr: where a slow CI run spent its time.
const startedAt = Date.now();
const step = (what: string) => process.stderr.write(`[scale-out +${((Date.now() - startedAt) / 1000).toFixed(1)}s] ${what}\n`);

describeWithService(
  'temporal-server',
  ['HERMES_TEST_TEMPORAL_SERVER_ADDRESS', 'HERMES_TEST_POSTGRES_URL'],
  'a Temporal cluster on PostgreSQL with several workers and the PostgreSQL store',
  (env) => {
    requireBuild();
    let connection: Connection;
    let client: Client;
    let model: ScriptedModelServer;
    let store: PostgresSessionStore;
    const workers: SpawnedProcess[] = [];

    beforeAll(async () => {
      connection = await Connection.connect({ address: env.HERMES_TEST_TEMPORAL_SERVER_ADDRESS! });
      client = new Client({ connection });
      model = await startScriptedModelServer({ script: SCRIPT });
      store = new PostgresSessionStore({ connectionString: env.HERMES_TEST_POSTGRES_URL!, poolSize: 2 });
    });
    afterAll(async () => {
      for (const worker of workers) await worker.stop().catch(() => undefined);
      await store?.close();
      await model?.close();
      await connection?.close();
    });

    test('20 sessions survive a SIGKILLed worker, a drained worker and a server restart', async () => {
      const deployment: Deployment = {
        address: env.HERMES_TEST_TEMPORAL_SERVER_ADDRESS!,
        postgresUrl: env.HERMES_TEST_POSTGRES_URL!,
        taskQueue: uniqueName('hermes-scale'),
        modelUrl: model.url,
        operatorHome: sandboxVisibleTempDir('scale-operator-'),
      };
      const toolsQueue = `${deployment.taskQueue}-tools`;
      const workerEnv = (extra: Record<string, string> = {}) =>
        deploymentEnv(deployment, sandboxVisibleTempDir('scale-worker-'), {
          HERMES__WORKER__SHUTDOWN_GRACE_SECONDS: String(SHUTDOWN_GRACE_SECONDS),
          HERMES__MODEL__RETRY_INITIAL_INTERVAL_MS: '100',
          ...extra,
        });
      const [killed, drained, survivor, toolsWorker] = await Promise.all([
        startWorkerProcess('worker-killed', workerEnv(), deployment.operatorHome),
        startWorkerProcess('worker-drained', workerEnv(), deployment.operatorHome),
        startWorkerProcess('worker-survivor', workerEnv(), deployment.operatorHome),
        startWorkerProcess('worker-tools', workerEnv({ HERMES_TASK_QUEUE: toolsQueue }), deployment.operatorHome),
      ]);
      workers.push(killed, drained, survivor, toolsWorker);
      step('4 workers polling');

      // 20 sessions at once; the last five run their commands on the tools queue's worker.
      const cwds = Array.from({ length: SESSIONS }, (_, index) => sandboxVisibleTempDir(`scale-session-${index}-`));
      const handles: SessionHandle[] = await Promise.all(
        cwds.map((cwd, index) =>
          startSession(client, {
            config: testConfig(
              {
                temporal: { task_queue: deployment.taskQueue },
                ...(index >= SESSIONS - TOOLS_QUEUE_SESSIONS ? { terminal: { local: { task_queue: toolsQueue } } } : {}),
              },
              { home: deployment.operatorHome, cwd },
            ),
            task: `scale-out session ${index}`,
          }),
        ),
      );

      step(`${SESSIONS} sessions started`);
      // Each session ran its parallel calls and now waits to delete reports/: answered by the CLI.
      const pending = await mapLimited(handles, 5, (handle) =>
        waitFor(async () => (await handle.query(pendingApprovalsQuery))[0], { timeoutMs: 120_000, intervalMs: 250, what: `${handle.workflowId}'s approval` }),
      );
      const decisions = await mapLimited(handles, 8, (handle) =>
        approveFromCli(deployment, sessionIdOf(handle), pending[handles.indexOf(handle)]!.approvalId),
      );
      step(`${SESSIONS} approvals answered by the CLI`);
      for (const decision of decisions) expect(decision).toMatchObject({ applied: 'once', decidedBy: expect.stringMatching(/via cli:/) });

      // Every slow command is running, some of them on the worker about to be killed.
      await mapLimited(handles, 5, (handle) =>
        waitFor(async () => (await handle.query(statusQuery)).runningTools.length > 0, { timeoutMs: 90_000, intervalMs: 250, what: `${handle.workflowId}'s slow command` }),
      );
      // Both workers about to go hold some of them (a sandboxed command is a process below its worker).
      for (const worker of [killed, drained]) {
        await waitFor(() => descendantPids(worker.child.pid!).length > 0, { timeoutMs: 10_000, what: `a command running under ${worker.label}` });
      }
      step('every slow command running: SIGKILL one worker, SIGTERM another');
      killed.signal('SIGKILL');
      drained.signal('SIGTERM');
      for (const cwd of cwds) writeFileSync(path.join(cwd, 'go'), '');
      // The drained worker lets its commands finish, reports them, and exits 0.
      const drainedExit = await drained.waitForExit((SHUTDOWN_GRACE_SECONDS + 15) * 1000);
      expect({ code: drainedExit.code, signal: drainedExit.signal }).toEqual({ code: 0, signal: null });

      step('drained worker exited 0; restarting the Temporal server');
      // Mid-session (the killed worker's calls not yet noticed, last turns to come): restart the server.
      await restartTemporalServer();

      step('server restarted');
      const results = await mapLimited(handles, SESSIONS, (handle) =>
        withTimeout(handle.result(), 180_000, () => `${handle.workflowId} did not complete`),
      );
      for (const result of results) expect(result).toMatchObject({ status: 'completed', answer: 'All done.', toolCalls: TOOL_CALLS });

      step('every session completed');
      let interrupted = 0;
      for (const [index, handle] of handles.entries()) {
        // Nothing lost: every tool result is in the shared store, in order.
        const stored = await toolResults(store, handle);
        expect(stored).toHaveLength(TOOL_CALLS);
        expect(stored.slice(0, 3)).toEqual([
          expect.objectContaining({ output: 'one', exit_code: 0 }),
          expect.objectContaining({ output: 'two', exit_code: 0 }),
          expect.objectContaining({ exit_code: 0 }),
        ]);
        expect(stored[3]).toMatchObject({ exit_code: 0 });
        // No started command ran twice: the slow one started once, finished or was reported interrupted.
        const ran = readFileSync(path.join(cwds[index]!, 'ran.log'), 'utf8').split('\n').filter(Boolean);
        expect(ran.filter((line) => line === 'started')).toHaveLength(1);
        expect(ran.filter((line) => line === 'after')).toHaveLength(1);
        if (stored[4]?.status === 'interrupted') {
          interrupted += 1;
          expect(stored[4]).toMatchObject({ exit_code: 130 });
        } else {
          expect(stored[4]).toMatchObject({ exit_code: 0 });
          expect(ran).toEqual(['started', 'finished', 'after']);
        }
      }
      // The SIGKILLed worker's commands were reported, not re-run; the tools queue's never were.
      expect(interrupted).toBeGreaterThan(0);
      for (const handle of handles.slice(SESSIONS - TOOLS_QUEUE_SESSIONS)) expect((await toolResults(store, handle))[4]).toMatchObject({ exit_code: 0 });

      // SQL visibility knows the project's search attributes and the final status of each session.
      const query = `TaskQueue = '${deployment.taskQueue}' AND HermesStatus = 'completed' AND HermesToolCalls = ${TOOL_CALLS}`;
      await waitFor(async () => (await client.workflow.count(query)).count === SESSIONS, { timeoutMs: 30_000, what: `visibility to list ${SESSIONS} completed sessions` });
      step(`checked; ${interrupted} interrupted command(s) reported, none re-run`);
    }, TEST_TIMEOUT_MS);
  },
);
