// The script that ends a session's background processes: it stops the processes whose runner
// still runs, and never signals a process that merely reuses a pid a stale pid file names.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ExecBackgroundProcesses } from '../../../src/environments/background/exec-background-processes';
import { stopSessionProcessesScript } from '../../../src/environments/background/session-processes-script';
import { LocalEnvironment } from '../../../src/environments/local-environment';
import { DEFAULT_SANDBOX_SETTINGS, LocalSandbox } from '../../../src/environments/local-sandbox';
import { isAlive } from '../../helpers/processes';
import { waitFor } from '../../helpers/wait';

let dir: string;
const strays: number[] = [];

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'hermes-stop-script-'));
});

afterEach(() => {
  for (const pid of strays.splice(0)) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

const runScript = (stateDir: string) => spawnSync('bash', ['-c', stopSessionProcessesScript(stateDir, 1)], { encoding: 'utf8', timeout: 20_000 });

test("stops every process of the session that still runs, whatever it started, and removes the session's files", async () => {
  const unsandboxed = new LocalEnvironment({ backend: 'local', cwd: dir, sessionId: 'stop-script' }, { sandbox: new LocalSandbox({ ...DEFAULT_SANDBOX_SETTINGS, mode: 'off' }) });
  const stateDir = path.join(dir, 'state');
  const processes = new ExecBackgroundProcesses((request) => unsandboxed.exec(request), stateDir, 1);
  const server = await processes.start({ command: 'sleep 301 & sleep 302; wait', cwd: dir });
  const finished = await processes.start({ command: 'true', cwd: dir });
  await waitFor(async () => (await processes.poll(finished.id))?.info.status === 'exited', { timeoutMs: 10_000, what: 'the short process to end' });
  expect(isAlive(server.pid!)).toBe(true);
  await processes.stopAll();
  await waitFor(() => !isAlive(server.pid!), { timeoutMs: 5000, what: 'the runner to stop' });
  expect(spawnSync('pgrep', ['-f', '^sleep 30[12]$']).status).toBe(1);
  expect(existsSync(stateDir)).toBe(false);
});

test('leaves alone a process whose pid a stale pid file names', () => {
  // Someone else's process, leading its own group: its pid is what an ended process's file says.
  const stranger = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
  strays.push(stranger.pid!);
  writeFileSync(path.join(dir, 'proc_0123456789ab.json'), '{}');
  writeFileSync(path.join(dir, 'proc_0123456789ab.pid'), String(stranger.pid));
  expect(runScript(dir).status).toBe(0);
  expect(isAlive(stranger.pid!)).toBe(true);
  expect(existsSync(dir)).toBe(false);
});

test('does nothing when the session never started a process', () => {
  rmSync(dir, { recursive: true });
  expect(runScript(dir).status).toBe(0);
});
