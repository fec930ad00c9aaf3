// Whole sessions on the docker backend, on the real Temporal dev server and the real test daemon:
// the model's commands run in the session's container, which is gone when the session ends; a
// worker killed mid-command leaves an "interrupted" result and no process behind.
import type { ChildProcess } from 'node:child_process';
import { startScriptedModelServer } from '../../../src/model/scripted-model-server';
import { startSession } from '../../../src/temporal/sessions';
import { describeWithService } from '../../helpers/services';
import { connectHarness, createTestWorker, sessionIdOf, testConfig, toolResults, uniqueName, withScriptedSession, type Harness } from '../../helpers/session-harness';
import { waitFor } from '../../helpers/wait';
import { DOCKER_SERVICE_ENV, dockerClient, sessionContainers, testDriver } from './docker-fixtures';
import { finishAfterKilledWorker, spawnWorkerProcess } from '../../helpers/worker-process';


describeWithService('docker', DOCKER_SERVICE_ENV, 'docker backend: whole sessions', (serviceEnv) => {
  const docker = dockerClient(serviceEnv);
  const terminal = { backend: 'docker' as const, docker: { socket_path: serviceEnv.HERMES_TEST_DOCKER_SOCKET, image: serviceEnv.HERMES_TEST_DOCKER_IMAGE } };
  let harness: Harness;

  beforeAll(async () => {
    harness = await connectHarness();
  });
  afterAll(async () => {
    await harness.close();
  });

  test("the model's commands and file tools run in the session's container, which is removed at the end", async () => {
    const script = {
      turns: [
        { tool_calls: [{ name: 'terminal', arguments: { command: 'test -f /.dockerenv && echo in-container; pwd; mkdir -p work && cd work' } }] },
        { tool_calls: [{ name: 'write_file', arguments: { path: 'note.txt', content: 'written by the model\n' } }] },
        { tool_calls: [{ name: 'terminal', arguments: { command: 'pwd; cat note.txt' } }] },
        { content: 'done in docker' },
      ],
    };
    await withScriptedSession(harness, { script, config: { terminal } }, async ({ handle, store }) => {
      const sessionId = sessionIdOf(handle);
      await waitFor(async () => (await sessionContainers(docker, sessionId)).length === 1, { timeoutMs: 60_000, what: 'the session container' });
      const result = await handle.result();
      expect(result).toMatchObject({ status: 'completed', answer: 'done in docker', toolCalls: 3 });
      const results = await toolResults(store, handle);
      expect(results[0]).toMatchObject({ output: 'in-container\n/workspace', exit_code: 0 });
      expect(results[1]).toMatchObject({ success: true });
      expect(results[2]).toMatchObject({ output: '/workspace/work\nwritten by the model', exit_code: 0 });
      expect(await sessionContainers(docker, sessionId)).toHaveLength(0);
    });
  });

  test('tools can run on a dedicated task queue: a tools-only worker serves them, the session runs elsewhere', async () => {
    const toolsQueue = uniqueName('tools-docker');
    const script = { turns: [{ tool_calls: [{ name: 'terminal', arguments: { command: 'test -f /.dockerenv && echo routed' } }] }, { content: 'ok' }] };
    const model = await startScriptedModelServer({ script });
    const config = testConfig({ model: { base_url: model.url }, terminal: { ...terminal, docker: { ...terminal.docker, task_queue: toolsQueue } } });
    const sessions = await createTestWorker(harness, config);
    const tools = await createTestWorker(harness, config, undefined, toolsQueue);
    try {
      const handle = await startSession(harness.client, { task: 'routed tools', config });
      const result = await sessions.worker.runUntil(tools.worker.runUntil(handle.result()));
      expect(result).toMatchObject({ status: 'completed' });
      expect((await toolResults(sessions.store, handle))[0]).toMatchObject({ output: 'routed', exit_code: 0 });
      const scheduled = ((await handle.fetchHistory()).events ?? []).flatMap((event) => {
        const attributes = event.activityTaskScheduledEventAttributes;
        return attributes ? [[attributes.activityType?.name, attributes.taskQueue?.name]] : [];
      });
      expect(scheduled).toEqual(expect.arrayContaining([['startEnvironment', toolsQueue], ['executeTool', toolsQueue], ['callModel', config.temporal.task_queue]]));
    } finally {
      await sessions.store.close();
      await tools.store.close();
      await model.close();
    }
  });

  test('a worker killed during a long command: the call is reported interrupted and its process is killed in the container', async () => {
    const token = uniqueName('orphan');
    const script = {
      turns: [
        { tool_calls: [{ name: 'terminal', arguments: { command: `for i in $(seq 1 10); do echo line-$i; done; echo begun > /workspace/marker.txt; sleep 45 # ${token}\necho never > /workspace/after.txt` } }] },
        {
          tool_calls: [
            {
              name: 'terminal',
              arguments: { command: `ps -eo args | grep -q '[s]leep 45 # ${token}' && echo still-running || echo gone; ls /workspace` },
            },
          ],
        },
        { content: 'noted the interruption' },
      ],
    };
    const model = await startScriptedModelServer({ script });
    const config = testConfig({ terminal, model: { base_url: model.url } });
    let child: ChildProcess | undefined;
    try {
      const handle = await startSession(harness.client, { task: 'survive a crash in docker', config, limits: { toolHeartbeatTimeoutSeconds: 2 } });
      const sessionId = sessionIdOf(handle);
      child = spawnWorkerProcess({
        address: harness.address,
        config,
        modelUrl: model.url,
        env: {
          HERMES__TERMINAL__BACKEND: 'docker',
          HERMES__TERMINAL__DOCKER__SOCKET_PATH: serviceEnv.HERMES_TEST_DOCKER_SOCKET,
          HERMES__TERMINAL__DOCKER__IMAGE: serviceEnv.HERMES_TEST_DOCKER_IMAGE,
        },
      });
      // Watch the container from outside, as the test's own "worker".
      const watcher = testDriver(serviceEnv);
      await waitFor(async () => (await sessionContainers(docker, sessionId)).length === 1, { timeoutMs: 60_000, what: 'the child worker to start the container' });
      const inside = await watcher.attach({ backend: 'docker', cwd: '/workspace', sessionId });
      await waitFor(() => inside.workspace.stat('/workspace/marker.txt'), { timeoutMs: 60_000, what: 'the command to start in the container' });
      child.kill('SIGKILL');

      const { results: [interrupted, check], store } = await finishAfterKilledWorker(harness, config, handle, 2);
      // What it printed before the kill comes from its log in the environment, not the (throttled) heartbeat.
      expect(interrupted?.output).toBe(Array.from({ length: 10 }, (_, index) => `line-${index + 1}`).join('\n'));
      // Seen from inside the container by the model's next command: killed, never reached its second line.
      expect(check).toMatchObject({ output: 'gone\nmarker.txt', exit_code: 0 });
      expect(await sessionContainers(docker, sessionId)).toHaveLength(0);
      await store.close();
    } finally {
      child?.kill('SIGKILL');
      await model.close();
    }
  });
});
