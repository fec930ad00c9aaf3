// PTY mode on the local backend (node-pty): foreground commands see a terminal, background PTY
// processes drive interactive programs such as a Python REPL, and a worker restart is reported
// honestly (the terminal is gone, its output is not).
import '../../../src/tools/terminal';
import '../../../src/tools/process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LocalPtyProcesses } from '../../../src/environments/background/local-pty-processes';
import { selectLines } from '../../../src/environments/background/log-lines';
import { LocalEnvironment } from '../../../src/environments/local-environment';
import { CrLfNormalizer } from '../../../src/environments/local-pty';
import { registry } from '../../../src/registry/registry';
import type { ToolContext } from '../../../src/registry/tool-entry';
import { createToolContext } from '../../helpers/tool-context';
import { waitFor } from '../../helpers/wait';
import { markedSleep, pidsRunning } from '../../helpers/processes';

type Result = Record<string, unknown> & { status?: string; output?: string; output_preview?: string };

let dir: string;
let sessionId: string;
const pools: LocalPtyProcesses[] = [];

beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'hermes-local-pty-')));
  mkdirSync(path.join(dir, 'sub'));
  sessionId = `local-pty-${randomBytes(4).toString('hex')}`;
});

afterEach(async () => {
  // Every worker's view of this session: kill what still runs anywhere.
  for (const pool of pools.splice(0)) {
    for (const info of await pool.list(stateDir())) {
      if (info.status === 'running') await pool.kill(stateDir(), info.id, 500);
    }
  }
  rmSync(stateDir(), { recursive: true, force: true });
  rmSync(dir, { recursive: true, force: true });
});

function stateDir(): string {
  return path.join(os.tmpdir(), 'hermes-bg', sessionId);
}

/** A worker: its own PTY process set and a view of the session's environment. */
function worker(pool = new LocalPtyProcesses()): { pool: LocalPtyProcesses; context: ToolContext; environment: LocalEnvironment } {
  pools.push(pool);
  const environment = new LocalEnvironment({ backend: 'local', cwd: dir, sessionId }, { ptyProcesses: pool, killGraceMs: 500 });
  return { pool, environment, context: createToolContext(dir, { sessionId, environment }) };
}

async function call(context: ToolContext, tool: string, args: Record<string, unknown>): Promise<Result> {
  return JSON.parse(await registry.dispatch(tool, args, context)) as Result;
}

async function untilOutput(context: ToolContext, id: string, pattern: RegExp): Promise<Result> {
  const found = await waitFor(
    async () => {
      const result = await call(context, 'process', { action: 'poll', session_id: id });
      return pattern.test(result.output_preview ?? '') ? result : undefined;
    },
    { timeoutMs: 15_000, what: `output matching ${pattern}` },
  );
  return found!;
}


describe('LocalEnvironment.exec with pty', () => {
  it('runs the command on a terminal and returns its output with plain line ends', async () => {
    const { environment } = worker();
    const result = await environment.exec({ command: 'tty; test -t 0 && test -t 1 && echo both; printf "a\\r\\nb\\n"; exit 3', timeoutMs: 10_000, pty: true });
    expect(result.exitCode).toBe(3);
    expect(result.output).toMatch(/^\/dev\/(pts\/\d+|console)\nboth\na\nb\n$/);
  });

  it('follows a cd like the pipe mode does', async () => {
    const { environment } = worker();
    await environment.exec({ command: 'cd sub', timeoutMs: 10_000, pty: true });
    expect(environment.handle.cwd).toBe(path.join(dir, 'sub'));
    expect((await environment.exec({ command: 'pwd', timeoutMs: 10_000, pty: true })).output).toBe(`${path.join(dir, 'sub')}\n`);
  });

  it('kills the whole process group at the timeout', async () => {
    const { environment } = worker();
    const child = markedSleep(30);
    const result = await environment.exec({ command: `${child} & echo started; sleep 30`, timeoutMs: 1000, pty: true });
    expect(result).toMatchObject({ exitCode: 124, timedOut: true });
    expect(result.output).toContain('started');
    await waitFor(() => pidsRunning(child).length === 0, { timeoutMs: 10_000, what: 'the background child to die' });
  });

  it('stops when the abort signal fires', async () => {
    const { environment } = worker();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const result = await environment.exec({ command: 'sleep 30', timeoutMs: 60_000, signal: controller.signal, pty: true });
    expect(result).toMatchObject({ exitCode: 130, interrupted: true });
  });
});

describe('background PTY processes', () => {
  it('drives a Python REPL through process submit', async () => {
    const { context } = worker();
    const started = await call(context, 'terminal', { command: 'python3 -i', background: true, pty: true });
    const id = started.session_id as string;
    expect(started).toMatchObject({ output: 'Background process started', exit_code: 0, error: null });
    expect(await call(context, 'process', { action: 'submit', session_id: id, data: 'print(6*7)' })).toEqual({ status: 'ok', bytes_written: 11 });
    const polled = await untilOutput(context, id, /\n42\n/);
    expect(polled).toMatchObject({ status: 'running', pid: started.pid });
    expect(polled.output_preview).toContain('>>> print(6*7)\n42\n');
    expect(await call(context, 'process', { action: 'close', session_id: id })).toEqual({ status: 'ok', message: 'EOF sent' });
    expect(await call(context, 'process', { action: 'wait', session_id: id, timeout: 30 })).toMatchObject({ status: 'exited', exit_code: 0 });
    const log = await call(context, 'process', { action: 'log', session_id: id });
    expect(log.output).toContain('>>> print(6*7)\n42\n>>>');
  });

  it('gives the process a terminal of the original size', async () => {
    const { context } = worker();
    const id = (await call(context, 'terminal', { command: 'tty; stty size', background: true, pty: true })).session_id;
    const result = await call(context, 'process', { action: 'wait', session_id: id, timeout: 30 });
    expect(result).toMatchObject({ status: 'exited', exit_code: 0 });
    expect(result.output).toMatch(/^\/dev\/(pts\/\d+|console)\n30 120\n$/);
  });

  it('lists PTY and file-backed processes together', async () => {
    const { context } = worker();
    const pty = (await call(context, 'terminal', { command: 'sleep 30', background: true, pty: true })).session_id;
    const plain = (await call(context, 'terminal', { command: 'sleep 30', background: true })).session_id;
    const { processes } = (await call(context, 'process', { action: 'list' })) as unknown as { processes: Result[] };
    expect(processes.map((entry) => entry.session_id).sort()).toEqual([pty, plain].sort());
    expect(processes.find((entry) => entry.session_id === pty)).toMatchObject({ pty: true, status: 'running' });
    await call(context, 'process', { action: 'kill', session_id: plain });
  });

  it('kills the process tree of a PTY process', async () => {
    const { context } = worker();
    const child = markedSleep(300);
    const id = (await call(context, 'terminal', { command: `${child} & echo up; wait`, background: true, pty: true })).session_id as string;
    await untilOutput(context, id, /up/);
    expect(pidsRunning(child)).toHaveLength(1);
    expect(await call(context, 'process', { action: 'kill', session_id: id })).toMatchObject({ status: 'killed', output: 'up\n' });
    await waitFor(() => pidsRunning(child).length === 0, { timeoutMs: 10_000, what: 'the child to die' });
    expect(await call(context, 'process', { action: 'poll', session_id: id })).toMatchObject({ status: 'exited', exit_code: -15 });
    expect(await call(context, 'process', { action: 'kill', session_id: id })).toMatchObject({ status: 'already_exited' });
  });

  it('kills what is left of the group once its leader has gone, as a sandbox still starting leaves it', async () => {
    // A namespace's init ignores TERM (and the terminal's hang-up), and a command forked after
    // the TERM never got it: here, a member that ignores both outlives the leader, which TERM ends.
    const pool = new LocalPtyProcesses();
    const child = markedSleep(300);
    const started = await pool.start(stateDir(), { command: `(trap '' TERM HUP; exec ${child}) & wait`, cwd: dir }, { PATH: process.env.PATH ?? '' });
    try {
      await waitFor(() => pidsRunning(child).length === 1, { timeoutMs: 5_000, what: 'the member to start' });
      expect(await pool.kill(stateDir(), started.id, 300)).toMatchObject({ status: 'exited', exitCode: -15 });
      await waitFor(() => pidsRunning(child).length === 0, { timeoutMs: 5_000, what: 'the member that ignores TERM to die' });
    } finally {
      for (const pid of pidsRunning(child)) process.kill(pid, 'SIGKILL');
    }
  });

  it('says a running PTY process was lost when another worker asks after a restart', async () => {
    const first = worker();
    const id = (await call(first.context, 'terminal', { command: 'echo before-restart; sleep 30', background: true, pty: true })).session_id as string;
    await untilOutput(first.context, id, /before-restart/);

    const second = worker();
    const polled = await call(second.context, 'process', { action: 'poll', session_id: id });
    expect(polled).toMatchObject({ session_id: id, status: 'exited', exit_code: null, completion_reason: 'lost', detached: true });
    expect(polled.note).toMatch(/worker that has since restarted/);
    expect(polled.output_preview).toBe('before-restart\n');
    const { processes } = (await call(second.context, 'process', { action: 'list' })) as unknown as { processes: Result[] };
    expect(processes).toEqual([expect.objectContaining({ session_id: id, completion_reason: 'lost' })]);
    expect(await call(second.context, 'process', { action: 'log', session_id: id })).toMatchObject({ output: 'before-restart', total_lines: 1 });
    expect(await call(second.context, 'process', { action: 'submit', session_id: id, data: 'x' })).toMatchObject({ status: 'already_exited' });
  });

  it("while a shell's launcher is still starting, the folder text typed into it is judged in is the shell's own, never /", async () => {
    // A launcher that is itself a shell and takes a while (a sandbox starting on a busy machine):
    // for a second it reads the terminal, in its start folder, before the command's own `cd`.
    const slowLauncher = (script: string) => ({ file: 'bash', args: ['-c', 'SECONDS=0; while ((SECONDS < 2)); do :; done; exec bash -c "$1"', 'launcher', script] });
    const { pool } = worker();
    const started = await pool.start(stateDir(), { command: 'bash --norc --noprofile', cwd: path.join(dir, 'sub'), pty: true }, { PATH: process.env.PATH ?? '/usr/bin:/bin', TERM: 'dumb' }, slowLauncher);
    const seen = new Set<string | undefined>();
    const until = Date.now() + 1000;
    while (Date.now() < until) seen.add(await pool.inputFolder(stateDir(), started.id));
    expect([...seen]).toEqual([path.join(dir, 'sub')]);
  });

  it('shows a PTY process that finished before the restart with its exit code', async () => {
    const first = worker();
    const id = (await call(first.context, 'terminal', { command: 'echo done; exit 5', background: true, pty: true })).session_id as string;
    expect(await call(first.context, 'process', { action: 'wait', session_id: id, timeout: 30 })).toMatchObject({ exit_code: 5 });
    const second = worker();
    expect(await call(second.context, 'process', { action: 'poll', session_id: id })).toMatchObject({
      status: 'exited',
      exit_code: 5,
      completion_reason: 'exited',
      output_preview: 'done\n',
    });
  });
});

describe('helpers', () => {
  it('turns \\r\\n into \\n across chunk boundaries and keeps a lone \\r', () => {
    const normalizer = new CrLfNormalizer();
    const pieces = ['a\r', '\nb\r', '\r', '\n', '50%\r100%\r\n', 'end\r'].map((chunk) => normalizer.push(chunk));
    expect(pieces.join('') + normalizer.end()).toBe('a\nb\n50%\r100%\nend\r');
  });

  it('selects lines like the file-backed log: the last lines, or from a 1-based line', () => {
    const text = 'one\ntwo\nthree\nfour\n';
    expect(selectLines(text, 0, 2)).toEqual({ output: 'three\nfour', totalLines: 4 });
    expect(selectLines(text, 2, 2)).toEqual({ output: 'two\nthree', totalLines: 4 });
    expect(selectLines('partial', 0, 5)).toEqual({ output: 'partial', totalLines: 1 });
    expect(selectLines('', 0, 5)).toEqual({ output: '', totalLines: 0 });
  });
});
