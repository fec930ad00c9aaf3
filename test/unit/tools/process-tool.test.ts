// The process tool through the registry, on the local backend: what the model sees when it
// polls, reads, waits for, kills and types into the background processes it started.
import '../../../src/tools/terminal';
import '../../../src/tools/process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LocalEnvironment } from '../../../src/environments/local-environment';
import { registry } from '../../../src/registry/registry';
import { DEFAULT_TOOL_SETTINGS, isRetrySafeCall, type ToolContext } from '../../../src/registry/tool-entry';
import { createToolContext } from '../../helpers/tool-context';
import { waitFor } from '../../helpers/wait';
import { markedSleep, pidsRunning } from '../../helpers/processes';

type Result = Record<string, unknown> & { status?: string; error?: string; output?: string; output_preview?: string };

let dir: string;
let context: ToolContext;

/** A context whose environment has its own session, so its background processes are its own. */
function sessionContext(overrides: Partial<ToolContext> = {}): ToolContext {
  const sessionId = `process-tool-${randomBytes(4).toString('hex')}`;
  return createToolContext(dir, { sessionId, environment: new LocalEnvironment({ backend: 'local', cwd: dir, sessionId }, { killGraceMs: 500 }), ...overrides });
}

async function call(tool: string, args: Record<string, unknown>, on: ToolContext = context): Promise<Result> {
  return JSON.parse(await registry.dispatch(tool, args, on)) as Result;
}

async function start(command: string, extra: Record<string, unknown> = {}, on: ToolContext = context): Promise<string> {
  const result = await call('terminal', { command, background: true, ...extra }, on);
  expect(result.output).toBe('Background process started');
  return result.session_id as string;
}

async function untilOutput(id: string, pattern: RegExp, on: ToolContext = context): Promise<Result> {
  const found = await waitFor(
    async () => {
      const result = await call('process', { action: 'poll', session_id: id }, on);
      return pattern.test(result.output_preview ?? '') ? result : undefined;
    },
    { timeoutMs: 15_000, what: `output matching ${pattern}` },
  );
  return found!;
}


const contexts: ToolContext[] = [];

beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'hermes-process-tool-')));
  context = sessionContext();
  contexts.push(context);
});

afterEach(async () => {
  for (const used of contexts.splice(0)) {
    for (const info of await used.environment.background.list()) {
      if (info.status === 'running') await used.environment.background.kill(info.id);
    }
    rmSync(path.join(os.tmpdir(), 'hermes-bg', used.sessionId), { recursive: true, force: true });
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('process tool schema', () => {
  it('is the original schema, with stdin described for every process', () => {
    const entry = registry.get('process')!;
    expect(entry.toolset).toBe('terminal');
    expect(entry.emoji).toBe('⚙️');
    expect(entry.schema.description).toMatch(
      /^Manage background processes started with terminal\(background=true\)\. Actions: 'list' \(show all\), 'poll' \(check status \+ new output\), 'log' \(full output with pagination\), 'wait' \(block until done or timeout\), 'kill' \(terminate\), 'write' \(send raw stdin data without newline\), 'submit' \(send data \+ Enter, for answering prompts\), 'close' \(close stdin\/send EOF\)\./,
    );
    const parameters = entry.schema.parameters as { properties: Record<string, Record<string, unknown>>; required: string[] };
    expect(parameters.required).toEqual(['action']);
    expect(parameters.properties.action).toEqual({
      type: 'string',
      enum: ['list', 'poll', 'log', 'wait', 'kill', 'write', 'submit', 'close'],
      description: 'Action to perform on background processes',
    });
    expect(parameters.properties.session_id).toEqual({
      type: 'string',
      description: "Process session ID (from terminal background output). Required for all actions except 'list'.",
    });
    expect(parameters.properties.data).toEqual({ type: 'string', description: "Text to send to process stdin (for 'write' and 'submit' actions)" });
    expect(parameters.properties.timeout).toMatchObject({
      type: 'integer',
      minimum: 1,
      description: "Max seconds to block for 'wait' action. Returns partial output on timeout.",
    });
    expect(parameters.properties.offset).toMatchObject({ type: 'integer', description: "Line offset for 'log' action (default: last 200 lines)" });
    expect(parameters.properties.limit).toMatchObject({ type: 'integer', minimum: 1, description: "Max lines to return for 'log' action" });
  });

  it('lets reads run beside other calls and be repeated after a crash, and nothing else', () => {
    const entry = registry.get('process')!;
    for (const action of ['list', 'poll', 'log']) {
      expect(entry.concurrency({ action })).toEqual({ mode: 'parallel' });
      expect(isRetrySafeCall(entry, { action })).toBe(true);
    }
    for (const action of ['wait', 'kill', 'write', 'submit', 'close', 'bogus']) {
      expect(entry.concurrency({ action })).toEqual({ mode: 'exclusive' });
      expect(isRetrySafeCall(entry, { action })).toBe(false);
    }
    expect(isRetrySafeCall(entry, undefined)).toBe(false);
  });
});

describe('process tool errors', () => {
  it('names the action that needs a session_id', async () => {
    for (const action of ['poll', 'log', 'wait', 'kill', 'write', 'submit', 'close']) {
      expect(await call('process', { action })).toEqual({ error: `session_id is required for ${action}` });
    }
  });

  it('lists the actions when given an unknown one', async () => {
    expect(await call('process', { action: 'restart', session_id: 'proc_000000000000' })).toEqual({
      error: 'Unknown process action: restart. Use: list, poll, log, wait, kill, write, submit, close',
    });
  });

  it('reports an unknown process as not found for every action', async () => {
    for (const id of ['proc_000000000000', 'not-a-process-id']) {
      for (const action of ['poll', 'log', 'wait', 'kill', 'write', 'submit', 'close']) {
        expect(await call('process', { action, session_id: id, data: 'x', timeout: 1 })).toEqual({
          status: 'not_found',
          error: `No process with ID ${id}`,
        });
      }
    }
  });

  it('does not show one session the processes of another', async () => {
    const id = await start('sleep 30');
    const other = sessionContext();
    contexts.push(other);
    expect(await call('process', { action: 'poll', session_id: id }, other)).toMatchObject({ status: 'not_found' });
    expect(await call('process', { action: 'list' }, other)).toEqual({ processes: [] });
  });
});

describe('a background process seen through the process tool', () => {
  it('polls status, pid, uptime and the latest output', async () => {
    const id = await start('echo first; echo second; sleep 30');
    const result = await untilOutput(id, /second/);
    expect(result).toMatchObject({ session_id: id, command: 'echo first; echo second; sleep 30', status: 'running' });
    expect(result.pid).toEqual(expect.any(Number));
    expect(result.uptime_seconds).toEqual(expect.any(Number));
    expect(result.output_preview).toBe('first\nsecond\n');
    expect(result).not.toHaveProperty('exit_code');
  });

  it('pages through the log by lines: the last lines by default, or from an offset', async () => {
    const id = await start('for i in 1 2 3 4 5 6; do echo line$i; done; sleep 30');
    await untilOutput(id, /line6/);
    expect(await call('process', { action: 'log', session_id: id })).toEqual({
      session_id: id,
      command: 'for i in 1 2 3 4 5 6; do echo line$i; done; sleep 30',
      status: 'running',
      output: 'line1\nline2\nline3\nline4\nline5\nline6',
      total_lines: 6,
      showing: '6 lines',
    });
    expect(await call('process', { action: 'log', session_id: id, limit: 2 })).toMatchObject({ output: 'line5\nline6', showing: '2 lines' });
    expect(await call('process', { action: 'log', session_id: id, offset: 0, limit: 2 })).toMatchObject({ output: 'line5\nline6' });
    expect(await call('process', { action: 'log', session_id: id, offset: 1, limit: 2 })).toMatchObject({
      output: 'line2\nline3',
      total_lines: 6,
      showing: '2 lines',
    });
    expect(await call('process', { action: 'log', session_id: id, offset: 5, limit: 10 })).toMatchObject({ output: 'line6', showing: '1 lines' });
    expect(await call('process', { action: 'log', session_id: id, offset: 50 })).toMatchObject({ output: '', showing: '0 lines', total_lines: 6 });
  });

  it('waits until the process exits and returns its exit code and output', async () => {
    const id = await start('sleep 0.3; echo bye; exit 4');
    expect(await call('process', { action: 'wait', session_id: id, timeout: 30 })).toEqual({
      status: 'exited',
      session_id: id,
      command: 'sleep 0.3; echo bye; exit 4',
      exit_code: 4,
      completion_reason: 'exited',
      termination_source: '',
      output: 'bye\n',
    });
    expect(await call('process', { action: 'poll', session_id: id })).toMatchObject({ status: 'exited', exit_code: 4 });
  });

  it('stops waiting at the timeout and says the process still runs', async () => {
    const id = await start('echo waiting; sleep 30');
    const result = await call('process', { action: 'wait', session_id: id, timeout: 1 });
    expect(result).toMatchObject({ status: 'timeout', session_id: id, timeout_note: 'Waited 1s, process still running' });
  });

  it('clamps a long wait to the configured default timeout and says so', async () => {
    const clamped = sessionContext({ settings: { terminal: { ...DEFAULT_TOOL_SETTINGS.terminal, defaultTimeoutSeconds: 1 } } });
    contexts.push(clamped);
    const running = await start('sleep 30', {}, clamped);
    expect(await call('process', { action: 'wait', session_id: running, timeout: 500 }, clamped)).toMatchObject({
      status: 'timeout',
      timeout_note: 'Requested wait of 500s was clamped to configured limit of 1s',
    });
    const quick = await start('true', {}, clamped);
    await waitFor(async () => (await call('process', { action: 'poll', session_id: quick }, clamped)).status === 'exited', {
      timeoutMs: 10_000,
      what: 'the quick process to exit',
    });
    expect(await call('process', { action: 'wait', session_id: quick, timeout: 500 }, clamped)).toMatchObject({
      status: 'exited',
      exit_code: 0,
      timeout_note: 'Requested wait of 500s was clamped to configured limit of 1s',
    });
  });

  it('lets a cancellation interrupt a wait', async () => {
    const id = await start('sleep 30');
    const controller = new AbortController();
    const reason = new Error('session cancelled');
    setTimeout(() => controller.abort(reason), 200);
    await expect(registry.dispatch('process', { action: 'wait', session_id: id, timeout: 60 }, { ...context, signal: controller.signal })).rejects.toBe(
      reason,
    );
  });

  it('kills the whole process tree, then reports it as already exited', async () => {
    const child = markedSleep(300);
    const id = await start(`${child} & echo started; wait`);
    await untilOutput(id, /started/);
    expect(pidsRunning(child)).toHaveLength(1);

    expect(await call('process', { action: 'kill', session_id: id })).toEqual({
      status: 'killed',
      session_id: id,
      completion_reason: 'killed',
      termination_source: 'process.kill',
      output: 'started\n',
    });
    await waitFor(() => pidsRunning(child).length === 0, { timeoutMs: 10_000, what: 'the child to die' });
    expect(await call('process', { action: 'poll', session_id: id })).toMatchObject({
      status: 'exited',
      exit_code: -15,
      completion_reason: 'killed',
    });
    expect(await call('process', { action: 'kill', session_id: id })).toMatchObject({ status: 'already_exited', exit_code: -15, output: 'started\n' });
  });

  it('lists the processes of the session with their state', async () => {
    expect(await call('process', { action: 'list' })).toEqual({ processes: [] });
    const sleeper = await start('echo sleeping; sleep 30', { notify_on_complete: true });
    const quick = await start('echo quick; exit 2');
    await waitFor(async () => (await call('process', { action: 'poll', session_id: quick })).status === 'exited', {
      timeoutMs: 10_000,
      what: 'the quick process to exit',
    });
    await untilOutput(sleeper, /sleeping/);
    const { processes } = (await call('process', { action: 'list' })) as unknown as { processes: Result[] };
    expect(processes.map((entry) => entry.session_id).sort()).toEqual([sleeper, quick].sort());
    expect(processes.find((entry) => entry.session_id === sleeper)).toMatchObject({
      command: 'echo sleeping; sleep 30',
      cwd: dir,
      status: 'running',
      notify_on_complete: true,
      output_preview: 'sleeping\n',
    });
    expect(processes.find((entry) => entry.session_id === quick)).toMatchObject({ status: 'exited', exit_code: 2, output_preview: 'quick\n' });
  });
});

describe('stdin of a background process', () => {
  it('writes, submits and closes stdin of a read loop', async () => {
    const id = await start('while read -r line; do echo "got:$line"; done; echo eof');
    expect(await call('process', { action: 'submit', session_id: id, data: 'hello' })).toEqual({ status: 'ok', bytes_written: 6 });
    await untilOutput(id, /got:hello/);
    expect(await call('process', { action: 'write', session_id: id, data: 'par' })).toEqual({ status: 'ok', bytes_written: 3 });
    expect(await call('process', { action: 'submit', session_id: id, data: 'tial' })).toEqual({ status: 'ok', bytes_written: 5 });
    await untilOutput(id, /got:partial/);
    expect(await call('process', { action: 'close', session_id: id })).toEqual({ status: 'ok', message: 'stdin closed' });
    expect(await call('process', { action: 'wait', session_id: id, timeout: 30 })).toMatchObject({
      status: 'exited',
      exit_code: 0,
      output: 'got:hello\ngot:partial\neof\n',
    });
    expect(await call('process', { action: 'submit', session_id: id, data: 'late' })).toEqual({
      status: 'already_exited',
      error: 'Process has already finished',
    });
  });

  it('drives a Python REPL without a terminal', async () => {
    const id = await start('python3 -i');
    await call('process', { action: 'submit', session_id: id, data: 'print(6*7)' });
    const result = await untilOutput(id, /42/);
    expect(result.output_preview).toMatch(/(^|\n|>>> )42\n/);
    expect(await call('process', { action: 'close', session_id: id })).toMatchObject({ status: 'ok' });
    expect(await call('process', { action: 'wait', session_id: id, timeout: 30 })).toMatchObject({ status: 'exited', exit_code: 0 });
  });

  it('starts nothing when the process is gone', async () => {
    const marker = path.join(dir, 'never');
    const id = await start('exit 0');
    await waitFor(async () => (await call('process', { action: 'poll', session_id: id })).status === 'exited', { timeoutMs: 10_000, what: 'exit' });
    expect(await call('process', { action: 'write', session_id: id, data: `touch ${marker}\n` })).toMatchObject({ status: 'already_exited' });
    expect(existsSync(marker)).toBe(false);
  });
});
