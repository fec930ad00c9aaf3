// A whole agentSession on the real Temporal server with the Apptainer backend, against the
// stand-in `apptainer` on PATH (it records argv and runs commands with bwrap in a rootfs folder).
import { spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startScriptedModelServer } from '../../../src/model/scripted-model-server';
import { startSession } from '../../../src/temporal/sessions';
import { describeWithService } from '../../helpers/services';
import { connectHarness, sessionIdOf, testConfig, toolResults, uniqueName, withScriptedSession, type Harness } from '../../helpers/session-harness';
import { waitFor } from '../../helpers/wait';
import { expectSandboxSessionResults, sandboxSessionScript } from '../../helpers/stand-in-session';
import { writeApptainerStandIn, type ApptainerStandIn } from './apptainer-stand-in';
import { finishAfterKilledWorker, spawnWorkerProcess } from '../../helpers/worker-process';


describeWithService('bwrap', ['HERMES_TEST_BWRAP'], '[stand-in apptainer] Apptainer session', ({ HERMES_TEST_BWRAP: bwrap = 'bwrap' }) => {
  let harness: Harness;
  let dir: string;
  let standIn: ApptainerStandIn;
  let savedPath: string | undefined;

  beforeAll(async () => {
    harness = await connectHarness();
    dir = mkdtempSync(path.join(os.tmpdir(), 'hermes-apptainer-session-'));
    standIn = writeApptainerStandIn(dir, { bwrap });
    savedPath = process.env.PATH;
    process.env.PATH = `${standIn.binDir}${path.delimiter}${savedPath ?? ''}`;
  });

  afterAll(async () => {
    process.env.PATH = savedPath;
    rmSync(dir, { recursive: true, force: true });
    await harness.close();
  });

  test('[stand-in apptainer] a session runs its tools in one instance, started once and stopped when the session ends', async () => {
    await withScriptedSession(
      harness,
      { script: sandboxSessionScript, config: { terminal: { backend: 'singularity', singularity: { image: '/images/session.sif' } } } },
      async ({ handle, store }) => {
        expect(await handle.result()).toMatchObject({ status: 'completed', answer: 'All done in the sandbox.', toolCalls: 4 });
        expectSandboxSessionResults(await toolResults(store, handle), '/workspace');
        const instance = `hermes_${sessionIdOf(handle)}`;
        const lifecycle = standIn.invocations().filter((argv) => argv[0] === 'instance' && argv[1] !== 'list');
        expect(lifecycle).toEqual([
          ['instance', 'start', '--containall', '--no-home', '--cleanenv', '--net', '--network', 'none', '--no-mount', 'bind-paths', '--writable-tmpfs', '/images/session.sif', instance],
          ['instance', 'stop', instance],
        ]);
        const execs = standIn.invocations().filter((argv) => argv[0] === 'exec');
        expect(execs.length).toBeGreaterThanOrEqual(5);
        expect(execs.every((argv) => argv.includes(`instance://${instance}`))).toBe(true);
        expect(readdirSync(path.join(dir, 'state', 'instances'))).toEqual([]);
        expect(existsSync(path.join(dir, 'state', 'instances', instance))).toBe(false);
      },
    );
  });

  test('[stand-in apptainer] a command whose worker is killed is reported as interrupted, and the next worker stops it inside the instance', async () => {
    const token = uniqueName('apptainer-orphan');
    const script = {
      turns: [
        { tool_calls: [{ name: 'terminal', arguments: { command: `echo begun > marker.txt; sleep 60 # ${token}\necho never > after.txt` } }] },
        { content: 'noted the interruption' },
      ],
    };
    const model = await startScriptedModelServer({ script });
    const config = testConfig({ model: { base_url: model.url }, terminal: { backend: 'singularity' } });
    let child: ChildProcess | undefined;
    try {
      const handle = await startSession(harness.client, { task: 'survive a crash in an instance', config, limits: { toolHeartbeatTimeoutSeconds: 2 } });
      child = spawnWorkerProcess({
        address: harness.address,
        config,
        modelUrl: model.url,
      });
      const instance = `hermes_${sessionIdOf(handle)}`;
      const instanceRoot = path.join(dir, 'state', 'instances', instance, 'tmpfs');
      await waitFor(() => existsSync(path.join(instanceRoot, 'workspace', 'marker.txt')), { timeoutMs: 90_000, what: 'the command to start in the instance' });
      child.kill('SIGKILL');

      const { store } = await finishAfterKilledWorker(harness, config, handle, 1);
      // killOrphan reached the command inside the instance through its pidfile: it never got to its second line.
      await waitFor(() => spawnSync('pgrep', ['-f', token]).status === 1, { timeoutMs: 10_000, what: 'the orphaned command to die' });
      expect(existsSync(path.join(instanceRoot, 'workspace', 'after.txt'))).toBe(false);
      // The session ended, so its instance was stopped.
      expect(existsSync(path.join(dir, 'state', 'instances', instance))).toBe(false);
      await store.close();
    } finally {
      child?.kill('SIGKILL');
      await model.close();
    }
  });
});
