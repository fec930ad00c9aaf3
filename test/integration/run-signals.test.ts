// Whatever stops `hermes-temporal run` (Ctrl+C once or twice, SIGTERM, SIGHUP, SIGKILL), in a terminal or
// in a pipe: it exits with 128 + the signal, the store says what became of the session, and
// nothing it started (embedded Temporal server, the command it was running, the process it had
// started in the background) is left.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import * as pty from 'node-pty';
import { loadConfig } from '../../src/config/load';
import { startScriptedModelServer, type ScriptedModelServer } from '../../src/model/scripted-model-server';
import { createSessionStore } from '../../src/store/create-session-store';
import type { SessionStore } from '../../src/store/session-store';
import { SessionProcessCaps } from '../../src/environments/session-process-caps';
import type { DevServerRecord } from '../../src/temporal/dev-server';
import { CLI_ENTRY, requireBuild, withTimeout } from '../helpers/cli';
import { isAlive, markedSleep, pidsRunning, pidsWithArgument } from '../helpers/processes';
import { tempDir } from '../helpers/session-harness';
import { waitFor } from '../helpers/wait';

jest.setTimeout(90_000);

/** A `run` started in a terminal or a pipe; its pid is also its process group. */
interface RunProcess {
  pid: number;
  output(): string;
  exited: Promise<number | null>;
  /** Ctrl+C in the terminal, or SIGINT to the process in a pipe. */
  interrupt(): void;
  signal(signal: NodeJS.Signals): void;
}

interface RunWorld {
  home: string;
  sleep: string;
  /** Started in the background in the session's first turn. */
  background: string;
  env: NodeJS.ProcessEnv;
  model: ScriptedModelServer;
}

const worlds: RunWorld[] = [];
const runs: RunProcess[] = [];

beforeAll(() => requireBuild());
afterEach(async () => {
  for (const run of runs.splice(0)) killGroup(run.pid);
  for (const world of worlds.splice(0)) {
    for (const server of serverRecords(world.home)) killGroup(server.pid);
    await world.model.close();
    rmSync(world.home, { recursive: true, force: true });
  }
});

async function world(): Promise<RunWorld> {
  const [sleep, background] = [markedSleep(60), markedSleep(300)];
  const model = await startScriptedModelServer({
    script: {
      turns: [
        { tool_calls: [{ name: 'terminal', arguments: { command: background, background: true } }] },
        { tool_calls: [{ name: 'terminal', arguments: { command: sleep } }] },
        { content: 'never reached' },
      ],
    },
  });
  const home = tempDir('hermes-run-signals-');
  // No TEMPORAL_ADDRESS: run starts (and must stop) its own server.
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    TERM: 'xterm',
    ...(process.env.TEMPORAL_CLI_PATH ? { TEMPORAL_CLI_PATH: process.env.TEMPORAL_CLI_PATH } : {}),
    HERMES_TEMPORAL_HOME: home,
    OPENAI_BASE_URL: model.url,
    OPENAI_API_KEY: 'test',
    HERMES_MODEL: 'scripted',
  };
  const created = { home, sleep, background, env, model };
  worlds.push(created);
  return created;
}

function inPipe(world: RunWorld): RunProcess {
  const child = spawn(process.execPath, [CLI_ENTRY, 'run', 'sleep a while'], { env: world.env, cwd: world.home, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const run: RunProcess = {
    pid: child.pid!,
    output: () => output,
    exited,
    interrupt: () => child.kill('SIGINT'),
    signal: (signal) => child.kill(signal),
  };
  runs.push(run);
  return run;
}

function inTerminal(world: RunWorld): RunProcess {
  const terminal = pty.spawn(process.execPath, [CLI_ENTRY, 'run', 'sleep a while'], { env: world.env, cwd: world.home, cols: 120, rows: 30 });
  let output = '';
  terminal.onData((data) => (output += data));
  const exited = new Promise<number | null>((resolve) => terminal.onExit(({ exitCode }) => resolve(exitCode)));
  const run: RunProcess = {
    pid: terminal.pid,
    output: () => output,
    exited,
    // The terminal turns Ctrl+C into SIGINT for its whole foreground process group.
    interrupt: () => terminal.write('\x03'),
    signal: (signal) => process.kill(terminal.pid, signal),
  };
  runs.push(run);
  return run;
}

function serverRecords(home: string): DevServerRecord[] {
  const dir = path.join(home, 'servers');
  if (!existsSync(dir)) return [];
  return readdirSync(dir).map((file) => JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as DevServerRecord);
}

/** Live (non-zombie) processes whose process group is `group`. */
function processesInGroup(group: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ');
      if (Number(fields[3]) === group && isAlive(Number(entry))) found.push(Number(entry));
    } catch {
      // Gone while we looked.
    }
  }
  return found;
}

function killGroup(group: number): void {
  try {
    process.kill(-group, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** Starts the run, waits until its command runs, and returns the embedded server's record. */
async function runUntilCommandRuns(run: RunProcess, world: RunWorld): Promise<DevServerRecord> {
  await waitFor(() => pidsRunning(world.sleep).length > 0 || !isAlive(run.pid), { timeoutMs: 60_000, what: 'the command to start' });
  if (!pidsRunning(world.sleep).length) throw new Error(`run exited before its command started:\n${run.output()}`);
  expect(pidsRunning(world.background).length).toBeGreaterThan(0);
  const [server] = serverRecords(world.home);
  if (!server) throw new Error('run left no pid file for its embedded server');
  expect(server.kind).toBe('embedded');
  expect(isAlive(server.pid)).toBe(true);
  return server;
}

async function expectNothingLeft(run: RunProcess, world: RunWorld, server: DevServerRecord): Promise<void> {
  await waitFor(
    () => processesInGroup(run.pid).length === 0 && processesInGroup(server.pid).length === 0 && pidsRunning(world.sleep).length + pidsRunning(world.background).length === 0,
    { timeoutMs: 10_000, what: 'every process of the run to be gone' },
  );
  expect(serverRecords(world.home)).toEqual([]);
  // Nor the session's process cap (as root): its cgroup goes with the session or the worker.
  const [session] = await withStore(world.home, (store) => store.listSessions());
  await waitFor(() => !existsSync(new SessionProcessCaps(0).directoryOf(session!.sessionId)), { timeoutMs: 5_000, what: "the session's cgroup to go" });
  // Nor the watcher run leaves for its abrupt end (abandoned-run.ts), or its reaper once done.
  await waitFor(() => pidsWithArgument(session!.sessionId).length === 0, { timeoutMs: 10_000, what: 'no process naming the session to be left' });
  // Nor its claim on the session (the next command would otherwise take the session for orphaned).
  expect(existsSync(path.join(world.home, 'runs', `${session!.sessionId}.json`))).toBe(false);
}

async function withStore<T>(home: string, use: (store: SessionStore) => Promise<T>): Promise<T> {
  const store = createSessionStore(loadConfig({ env: { HERMES_TEMPORAL_HOME: home } }));
  try {
    return await use(store);
  } finally {
    await store.close();
  }
}

async function storedStatus(home: string): Promise<{ status: string; error?: string }> {
  const [session] = await withStore(home, (store) => store.listSessions());
  return { status: session?.status ?? 'none', ...(session?.error ? { error: session.error } : {}) };
}

async function exitOf(run: RunProcess, timeoutMs = 30_000): Promise<number | null> {
  return withTimeout(run.exited, timeoutMs, () => `run did not exit within ${timeoutMs} ms:\n${run.output()}`);
}

describe.each([
  ['in a terminal', inTerminal],
  ['in a pipe', inPipe],
])('run %s', (_where, start) => {
  test('one Ctrl+C cancels the session, kills its command, exits 130 and leaves nothing running', async () => {
    const here = await world();
    const run = start(here);
    const server = await runUntilCommandRuns(run, here);
    run.interrupt();
    expect(await exitOf(run)).toBe(130);
    expect(run.output()).toMatch(/Cancelling the session/);
    expect(await storedStatus(here.home)).toMatchObject({ status: 'cancelled' });
    await expectNothingLeft(run, here, server);
  });

  test('a second Ctrl+C quits at once, records what became of the session and leaves nothing running', async () => {
    const here = await world();
    const run = start(here);
    const server = await runUntilCommandRuns(run, here);
    run.interrupt();
    await waitFor(() => /Cancelling the session/.test(run.output()), { timeoutMs: 5000, what: 'the first Ctrl+C to be acknowledged' });
    const secondAt = Date.now();
    run.interrupt();
    expect(await exitOf(run, 10_000)).toBe(130);
    expect(Date.now() - secondAt).toBeLessThan(5000);
    // The first Ctrl+C's cancellation may have been recorded already; if not, it never will be.
    const stored = await storedStatus(here.home);
    if (stored.status !== 'cancelled') {
      expect(stored.status).toBe('abandoned');
      expect(stored.error).toMatch(/stopped \(SIGINT\).*server/);
    }
    await expectNothingLeft(run, here, server);
  });
});

test('SIGHUP (the terminal closed) cancels the session, exits 129 and leaves nothing running', async () => {
  const here = await world();
  const run = inTerminal(here);
  const server = await runUntilCommandRuns(run, here);
  run.signal('SIGHUP');
  expect(await exitOf(run)).toBe(129);
  expect(await storedStatus(here.home)).toMatchObject({ status: 'cancelled' });
  await expectNothingLeft(run, here, server);
});

test('SIGTERM to the process group (as `timeout` sends it) cancels the session, exits 143 and leaves nothing running', async () => {
  const here = await world();
  const run = inPipe(here);
  const server = await runUntilCommandRuns(run, here);
  process.kill(-run.pid, 'SIGTERM');
  expect(await exitOf(run)).toBe(143);
  expect(run.output()).not.toMatch(/Not running|Failed to get Workflow/);
  expect(await storedStatus(here.home)).toMatchObject({ status: 'cancelled' });
  await expectNothingLeft(run, here, server);
});

test('a run killed outright (SIGKILL) records the session abandoned and leaves nothing running', async () => {
  const here = await world();
  const run = inPipe(here);
  const server = await runUntilCommandRuns(run, here);
  run.signal('SIGKILL');
  await exitOf(run, 10_000);
  // Nothing of run could act: the watcher it left outside its process group does.
  await expectNothingLeft(run, here, server);
  await waitFor(async () => (await storedStatus(here.home)).status === 'abandoned', { timeoutMs: 15_000, what: 'the session to be stored abandoned' });
  expect((await storedStatus(here.home)).error).toMatch(/killed or crashed.*server/);
});

test('when the process that started run dies, run cancels the session and leaves nothing running', async () => {
  const here = await world();
  // A parent shell in its own process group, with run as its child; the shell is then killed.
  const parent = spawn('bash', ['-c', `"$0" "$@" & wait`, process.execPath, CLI_ENTRY, 'run', 'sleep a while'], {
    env: here.env,
    cwd: here.home,
    detached: true,
    stdio: 'ignore',
  });
  const group = parent.pid!;
  runs.push({ pid: group, output: () => '', exited: Promise.resolve(null), interrupt: () => undefined, signal: () => undefined });
  const server = await runUntilCommandRuns({ pid: group, output: () => '(a pipe nobody reads)', exited: Promise.resolve(null), interrupt: () => undefined, signal: () => undefined }, here);
  process.kill(group, 'SIGKILL');
  await waitFor(async () => (await storedStatus(here.home)).status === 'cancelled', { timeoutMs: 30_000, what: 'the session to be stored cancelled' });
  const left = () => pidsRunning(here.sleep).length + pidsRunning(here.background).length;
  await waitFor(() => processesInGroup(group).length === 0 && processesInGroup(server.pid).length === 0 && left() === 0, {
    timeoutMs: 20_000,
    what: 'every process of the run to be gone',
  });
});

test('when run, its watcher and its server all die at once, the next `sessions` records the session abandoned and stops what it left', async () => {
  const here = await world();
  const run = inPipe(here);
  const server = await runUntilCommandRuns(run, here);
  const [session] = await withStore(here.home, (store) => store.listSessions());
  const watcher = pidsWithArgument('hermes-run-watch').filter((pid) => pidsWithArgument(session!.sessionId).includes(pid));
  expect(watcher).toHaveLength(1);
  // As a power cut would, but for the background process: the reaper's step must stop it.
  for (const pid of [...watcher, ...pidsRunning(here.sleep)]) process.kill(pid, 'SIGKILL');
  killGroup(server.pid);
  run.signal('SIGKILL');
  await exitOf(run, 10_000);
  expect(await storedStatus(here.home)).toMatchObject({ status: 'running' });

  const listing = spawn(process.execPath, [CLI_ENTRY, 'sessions'], { env: here.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let printed = '';
  listing.stdout.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  expect(await withTimeout(new Promise((resolve) => listing.once('close', resolve)), 20_000, () => 'sessions did not finish')).toBe(0);
  expect(printed).toMatch(new RegExp(`${session!.sessionId}\\s+abandoned`));
  expect((await storedStatus(here.home)).error).toMatch(/the run and its watcher were killed/);
  expect(readdirSync(path.join(here.home, 'runs'))).toEqual([]);
  await waitFor(() => pidsRunning(here.background).length === 0, { timeoutMs: 10_000, what: 'the background process to be stopped' });
});
