// Whole sessions on the SSH backend, on the real Temporal dev server and the real test sshd: the
// model's commands and file tools run on the host, as the test user, in the session's remote cwd;
// a worker killed mid-command leaves an "interrupted" result and no process behind on the host.
import type { ChildProcess } from 'node:child_process';
import { startScriptedModelServer } from '../../../src/model/scripted-model-server';
import { startSession } from '../../../src/temporal/sessions';
import { describeWithService } from '../../helpers/services';
import { connectHarness, testConfig, toolResults, uniqueName, withScriptedSession, type Harness } from '../../helpers/session-harness';
import { waitFor } from '../../helpers/wait';
import { newHandle, remoteProcessExists, run, SSH_SERVICE_ENV, sshSection, testDriver } from './ssh-fixtures';
import { finishAfterKilledWorker, spawnWorkerProcess } from '../../helpers/worker-process';


describeWithService('sshd', SSH_SERVICE_ENV, 'ssh backend: whole sessions', (serviceEnv) => {
  const watcher = testDriver(serviceEnv);
  let harness: Harness;

  beforeAll(async () => {
    harness = await connectHarness();
  });
  afterAll(async () => {
    await watcher.releaseAll();
    await harness.close();
  });

  async function onHost() {
    return watcher.attach(await watcher.start(newHandle(undefined, '/tmp')));
  }

  test("the model's commands and file tools run on the host, in the session's remote directory", async () => {
    const workdir = `~/${uniqueName('session')}`;
    const terminal = { backend: 'ssh' as const, ssh: { ...sshSection(serviceEnv), workdir } };
    const script = {
      turns: [
        { tool_calls: [{ name: 'terminal', arguments: { command: 'whoami; pwd; mkdir -p sub && cd sub' } }] },
        { tool_calls: [{ name: 'write_file', arguments: { path: 'note.txt', content: 'written by the model over sftp\n' } }] },
        { tool_calls: [{ name: 'terminal', arguments: { command: 'pwd; cat note.txt; echo $((6 * 7))' } }] },
        { tool_calls: [{ name: 'read_file', arguments: { path: 'note.txt' } }] },
        { content: 'done over ssh' },
      ],
    };
    const host = await onHost();
    const home = await run(host, 'echo $HOME');
    await withScriptedSession(harness, { script, config: { terminal } }, async ({ handle, store }) => {
      const result = await handle.result();
      expect(result).toMatchObject({ status: 'completed', answer: 'done over ssh', toolCalls: 4 });
      const results = await toolResults(store, handle);
      const cwd = `${home}/${workdir.slice(2)}`;
      expect(results[0]).toMatchObject({ output: `${serviceEnv.HERMES_TEST_SSH_USER}\n${cwd}`, exit_code: 0 });
      expect(results[1]).toMatchObject({ success: true });
      expect(results[2]).toMatchObject({ output: `${cwd}/sub\nwritten by the model over sftp\n42`, exit_code: 0 });
      expect(JSON.stringify(results[3])).toContain('written by the model over sftp');
      expect(await run(host, `cat ${cwd}/sub/note.txt`)).toBe('written by the model over sftp');
      await run(host, `rm -rf ${cwd}`);
    });
  });

  test('a worker killed during a long remote command: the call is reported interrupted and the remote process is killed', async () => {
    const token = uniqueName('orphan');
    const workdir = `/tmp/${uniqueName('ssh-crash')}`;
    const script = {
      turns: [
        { tool_calls: [{ name: 'terminal', arguments: { command: `for i in $(seq 1 10); do echo line-$i; done; echo begun > marker.txt; sleep 45 # ${token}\necho never > after.txt` } }] },
        { tool_calls: [{ name: 'terminal', arguments: { command: `pgrep -f '[${token.slice(0, 1)}]${token.slice(1)}' >/dev/null && echo still-running || echo gone; ls` } }] },
        { content: 'noted the interruption' },
      ],
    };
    const model = await startScriptedModelServer({ script });
    const config = testConfig({ terminal: { backend: 'ssh', ssh: { ...sshSection(serviceEnv), workdir } }, model: { base_url: model.url } });
    const host = await onHost();
    let child: ChildProcess | undefined;
    try {
      const handle = await startSession(harness.client, { task: 'survive a crash over ssh', config, limits: { toolHeartbeatTimeoutSeconds: 2 } });
      child = spawnWorkerProcess({
        address: harness.address,
        config,
        modelUrl: model.url,
        env: {
          HERMES__TERMINAL__BACKEND: 'ssh',
          HERMES__TERMINAL__SSH__HOST: serviceEnv.HERMES_TEST_SSH_HOST,
          HERMES__TERMINAL__SSH__PORT: serviceEnv.HERMES_TEST_SSH_PORT,
          HERMES__TERMINAL__SSH__USER: serviceEnv.HERMES_TEST_SSH_USER,
          HERMES__TERMINAL__SSH__KEY_PATH: serviceEnv.HERMES_TEST_SSH_KEY,
          HERMES__TERMINAL__SSH__HOST_FINGERPRINT: serviceEnv.HERMES_TEST_SSH_FINGERPRINT,
          HERMES__TERMINAL__SSH__WORKDIR: workdir,
        },
      });
      await waitFor(async () => (await host.workspace.stat(`${workdir}/marker.txt`)) !== null, { timeoutMs: 60_000, what: 'the command to start on the host' });
      expect(await remoteProcessExists(host, token)).toBe(true);
      child.kill('SIGKILL');

      const { results: [interrupted, check], store } = await finishAfterKilledWorker(harness, config, handle, 2);
      // What it printed before the kill comes from its log in the environment, not the (throttled) heartbeat.
      expect(interrupted?.output).toBe(Array.from({ length: 10 }, (_, index) => `line-${index + 1}`).join('\n'));
      // Seen on the host by the model's next command: killed, never reached its second line.
      expect(check).toMatchObject({ output: 'gone\nmarker.txt', exit_code: 0 });
      expect(await remoteProcessExists(host, token)).toBe(false);
      await store.close();
    } finally {
      child?.kill('SIGKILL');
      await model.close();
      await run(host, `rm -rf ${workdir}`).catch(() => undefined);
    }
  });
});
