// terminal(background=true) and the foreground guard: what starting a process looks like to the
// model, which foreground commands are sent to the background instead, and how a finished
// notify_on_complete process becomes a notification for the session.
import '../../../src/tools/terminal';
import '../../../src/tools/process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import {
  createBackgroundActivities,
  formatProcessNotification,
  type WatchBackgroundProcessInput,
  type WatchBackgroundProcessResult,
} from '../../../src/activities/background-activities';
import { startedBackgroundProcess } from '../../../src/activities/execute-tool';
import { loadCommandClassifier } from '../../../src/approval-signals/classify-command';
import { EnvironmentFactory } from '../../../src/environments/factory';
import { LocalEnvironment } from '../../../src/environments/local-environment';
import { shellQuote } from '../../../src/environments/shell-quote';
import type { EnvironmentHandle } from '../../../src/environments/terminal-environment';
import { registry } from '../../../src/registry/registry';
import type { ToolContext } from '../../../src/registry/tool-entry';
import { SILENT_BACKGROUND_HINT } from '../../../src/tools/terminal-description';
import { AMPERSAND_GUIDANCE, LONG_LIVED_GUIDANCE, SHELL_WRAPPER_GUIDANCE } from '../../../src/tools/terminal-guards';
import { createToolContext } from '../../helpers/tool-context';
import { waitFor } from '../../helpers/wait';

type Result = Record<string, unknown>;

let dir: string;
let sessionId: string;
let context: ToolContext;

beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'hermes-terminal-bg-')));
  mkdirSync(path.join(dir, 'sub'));
  sessionId = `terminal-bg-${randomBytes(4).toString('hex')}`;
  context = createToolContext(dir, { sessionId, environment: new LocalEnvironment({ backend: 'local', cwd: dir, sessionId }, { killGraceMs: 500 }) });
});

afterEach(async () => {
  for (const info of await context.environment.background.list()) {
    if (info.status === 'running') await context.environment.background.kill(info.id);
  }
  rmSync(path.join(os.tmpdir(), 'hermes-bg', sessionId), { recursive: true, force: true });
  rmSync(dir, { recursive: true, force: true });
});

async function terminal(args: Record<string, unknown>, on: ToolContext = context): Promise<Result> {
  return JSON.parse(await registry.dispatch('terminal', args, on)) as Result;
}

async function processTool(args: Record<string, unknown>): Promise<Result> {
  return JSON.parse(await registry.dispatch('process', args, context)) as Result;
}

describe('terminal schema', () => {
  it("offers the original's background, pty and notify_on_complete parameters", () => {
    const parameters = registry.get('terminal')!.schema.parameters as { properties: Record<string, Record<string, unknown>>; required: string[] };
    expect(Object.keys(parameters.properties).sort()).toEqual(['background', 'command', 'notify_on_complete', 'pty', 'timeout', 'workdir']);
    expect(parameters.required).toEqual(['command']);
    for (const name of ['background', 'pty', 'notify_on_complete']) {
      expect(parameters.properties[name]).toMatchObject({ type: 'boolean', default: false });
    }
    expect(parameters.properties.background!.description).toMatch(/^Run the command in the background\. Almost always pair with notify_on_complete=true/);
    expect(parameters.properties.notify_on_complete!.description).toMatch(/^When true \(and background=true\), you'll be automatically notified exactly once/);
    expect(parameters.properties.notify_on_complete!.description).not.toContain('watch_patterns');
  });

  it('mentions the process tool only when the session has it', () => {
    const entry = registry.get('terminal')!;
    const withProcess = entry.patchSchema!(entry.schema, new Set(['terminal', 'process']));
    expect(withProcess.description).toContain('process(action="poll")');
    const withoutProcess = entry.patchSchema!(entry.schema, new Set(['terminal']));
    expect(withoutProcess.description).not.toContain('process(');
    const background = (withoutProcess.parameters as { properties: Record<string, { description: string }> }).properties.background!;
    expect(background.description).not.toContain('process(');
  });

  it('runs background starts alone, and read-only foreground commands beside other reads', async () => {
    // Read-only-ness comes from the detector's parse, which workers load at start.
    await loadCommandClassifier();
    const entry = registry.get('terminal')!;
    expect(entry.concurrency({ command: 'ls', background: true })).toEqual({ mode: 'exclusive' });
    expect(entry.concurrency({ command: 'ls', background: 'true' })).toEqual({ mode: 'exclusive' });
    expect(entry.concurrency({ command: 'ls' })).toEqual({ mode: 'path', path: '/', access: 'read' });
    expect(entry.concurrency({ command: 'ls', background: false })).toEqual({ mode: 'path', path: '/', access: 'read' });
  });
});

describe('terminal(background=true)', () => {
  it("returns the original's result with the silent-background hint", async () => {
    const result = await terminal({ command: 'sleep 30', background: true });
    expect(result).toEqual({
      output: 'Background process started',
      session_id: expect.stringMatching(/^proc_[0-9a-f]{12}$/),
      pid: expect.any(Number),
      exit_code: 0,
      error: null,
      hint: SILENT_BACKGROUND_HINT,
    });
    expect(SILENT_BACKGROUND_HINT).toMatch(/^background=true without notify_on_complete=true means this process runs SILENTLY — /);
    expect(await processTool({ action: 'poll', session_id: result.session_id })).toMatchObject({ status: 'running' });
  });

  it('says notify_on_complete instead of the hint when it is set', async () => {
    const result = await terminal({ command: 'sleep 30', background: true, notify_on_complete: true });
    expect(result).toMatchObject({ output: 'Background process started', exit_code: 0, error: null, notify_on_complete: true });
    expect(result).not.toHaveProperty('hint');
    const { processes } = (await processTool({ action: 'list' })) as { processes: Result[] };
    expect(processes).toEqual([expect.objectContaining({ session_id: result.session_id, notify_on_complete: true })]);
  });

  it('runs in the session directory, or in the workdir given', async () => {
    await terminal({ command: 'cd sub' });
    const inSession = (await terminal({ command: 'pwd', background: true })).session_id;
    const inWorkdir = (await terminal({ command: 'pwd', background: true, workdir: dir })).session_id;
    expect(await processTool({ action: 'wait', session_id: inSession, timeout: 30 })).toMatchObject({ output: `${path.join(dir, 'sub')}\n` });
    expect(await processTool({ action: 'wait', session_id: inWorkdir, timeout: 30 })).toMatchObject({ output: `${dir}\n` });
  });

  it('accepts a timeout beyond the foreground maximum', async () => {
    expect(await terminal({ command: 'sleep 30', background: true, timeout: 3600 })).toMatchObject({ output: 'Background process started' });
  });

  it('still blocks a workdir with shell metacharacters', async () => {
    expect(await terminal({ command: 'pwd', background: true, workdir: '/tmp; id' })).toMatchObject({ exit_code: -1, status: 'blocked' });
    expect(await processTool({ action: 'list' })).toEqual({ processes: [] });
  });

  it('lets long-lived servers and & run in the background', async () => {
    expect(await terminal({ command: 'sleep 1 &', background: true })).toMatchObject({ output: 'Background process started' });
    expect(await terminal({ command: 'npm run dev', background: true })).toMatchObject({ output: 'Background process started' });
  });
});

describe('foreground guard', () => {
  it.each<[command: string, message: string]>([
    ['nohup sleep 30', SHELL_WRAPPER_GUIDANCE],
    ['cd /tmp && nohup ./server', SHELL_WRAPPER_GUIDANCE],
    ['setsid sleep 30', SHELL_WRAPPER_GUIDANCE],
    ['sleep 30 & disown', SHELL_WRAPPER_GUIDANCE],
    ['sleep 30 &', AMPERSAND_GUIDANCE],
    ['python3 -m http.server 8000 & curl localhost:8000', AMPERSAND_GUIDANCE],
    ['sleep 30 & # in the background', AMPERSAND_GUIDANCE],
    ['npm run dev', LONG_LIVED_GUIDANCE],
    ['pnpm start', LONG_LIVED_GUIDANCE],
    ['yarn watch', LONG_LIVED_GUIDANCE],
    ['bun run serve', LONG_LIVED_GUIDANCE],
    ['docker compose up', LONG_LIVED_GUIDANCE],
    ['npx next dev', LONG_LIVED_GUIDANCE],
    ['vite', LONG_LIVED_GUIDANCE],
    ['npx vite --port 3000', LONG_LIVED_GUIDANCE],
    ['nodemon app.js', LONG_LIVED_GUIDANCE],
    ['uvicorn app:app --reload', LONG_LIVED_GUIDANCE],
    ['gunicorn app:app', LONG_LIVED_GUIDANCE],
    ['python -m http.server', LONG_LIVED_GUIDANCE],
    ['python3 -m http.server 9000', LONG_LIVED_GUIDANCE],
  ])('sends %j to the background', async (command, message) => {
    expect(await terminal({ command })).toEqual({ output: '', exit_code: -1, error: message, status: 'error' });
  });

  it("uses the original's exact words", () => {
    expect(SHELL_WRAPPER_GUIDANCE).toBe(
      'Foreground command uses shell-level background wrappers (nohup/disown/setsid). Use terminal(background=true) so Hermes can track the process, then run readiness checks and tests in separate commands.',
    );
    expect(AMPERSAND_GUIDANCE).toBe(
      "Foreground command uses '&' backgrounding. Use terminal(background=true) for long-lived processes, then run health checks and tests in follow-up terminal calls.",
    );
    expect(LONG_LIVED_GUIDANCE).toBe(
      'This foreground command appears to start a long-lived server/watch process. Run it with background=true, verify readiness (health endpoint/log signal), then execute tests in a separate command.',
    );
  });

  it('does not run a guarded command', async () => {
    const marker = path.join(dir, 'ran');
    await terminal({ command: `nohup touch ${shellQuote(marker)}` });
    await terminal({ command: `touch ${shellQuote(marker)} &` });
    expect(existsSync(marker)).toBe(false);
  });

  it.each([
    'vite --help',
    'npm run dev -- --help',
    'uvicorn --version',
    'nodemon -v',
    'gunicorn -h',
    'git commit --allow-empty -m "start the server with nohup and npm run dev &" --dry-run',
    "echo 'vite & nohup'",
    'true && echo done',
    'echo a 2>&1',
    'viteconfig=1; echo $viteconfig',
  ])('lets %j run in the foreground', async (command) => {
    const result = await terminal({ command });
    expect(result.status).toBeUndefined();
    expect(typeof result.exit_code).toBe('number');
  });
});

describe('foreground PTY', () => {
  it('gives the command a terminal when pty is set', async () => {
    const result = await terminal({ command: 'tty', pty: true });
    expect(result).toMatchObject({ exit_code: 0, error: null });
    expect(result.output).toMatch(/^\/dev\/(pts\/\d+|console)$/);
  });

  it('runs without a terminal otherwise', async () => {
    expect(await terminal({ command: 'tty' })).toMatchObject({ output: 'not a tty', exit_code: 1 });
  });
});

describe('notify_on_complete plumbing', () => {
  it('finds the started process in a terminal result', () => {
    const started = JSON.stringify({ output: 'Background process started', session_id: 'proc_0123456789ab', pid: 7, exit_code: 0, error: null, notify_on_complete: true });
    expect(startedBackgroundProcess(started)).toEqual({ processId: 'proc_0123456789ab', notifyOnComplete: true });
    const silent = JSON.stringify({ output: 'Background process started', session_id: 'proc_0123456789ab', pid: 7, exit_code: 0, error: null, hint: 'x' });
    expect(startedBackgroundProcess(silent)).toEqual({ processId: 'proc_0123456789ab', notifyOnComplete: false });
    expect(startedBackgroundProcess(JSON.stringify({ output: 'Background process started', exit_code: 0, error: null }))).toBeUndefined();
    expect(startedBackgroundProcess(JSON.stringify({ output: 'hi', exit_code: 0, error: null }))).toBeUndefined();
    expect(startedBackgroundProcess('not json')).toBeUndefined();
  });

  it("formats the original's notification words", () => {
    const base = { processId: 'proc_0123456789ab', command: 'make test', outputTail: 'ok\n' };
    expect(formatProcessNotification({ ...base, exitCode: 0 })).toBe(
      '[IMPORTANT: Background process proc_0123456789ab completed normally (exit code 0).\nCommand: make test\nOutput:\nok\n]',
    );
    expect(formatProcessNotification({ ...base, exitCode: 2 })).toContain('proc_0123456789ab exited (exit code 2).');
    expect(formatProcessNotification({ ...base, exitCode: 143 })).toContain('exited (exit code 143, SIGTERM).');
    expect(formatProcessNotification({ ...base, exitCode: -15 })).toContain('terminated by process.kill (exit code -15, SIGTERM).');
    expect(formatProcessNotification(base)).toContain('marked lost because the process backend disappeared (exit code ?).');
  });

  describe('watchBackgroundProcess activity', () => {
    const activities = createBackgroundActivities({ environments: new EnvironmentFactory(), pollIntervalMs: 50 });
    const handle = (): EnvironmentHandle => ({ backend: 'local', cwd: dir, sessionId });
    const watch = (activity: MockActivityEnvironment, processId: unknown): Promise<WatchBackgroundProcessResult> =>
      activity.run((input: WatchBackgroundProcessInput) => activities.watchBackgroundProcess(input), { environment: handle(), processId: String(processId), sessionId });

    /** A process started with notify_on_complete, and its watch once it has seen the process run. */
    const watchedRunning = async (command: string) => {
      const { session_id: processId } = await terminal({ command, background: true, notify_on_complete: true });
      const activity = new MockActivityEnvironment();
      let beats = 0;
      activity.on('heartbeat', () => (beats += 1));
      const watching = watch(activity, processId);
      // Past the first beat, sent before anything is looked at, the watch has seen the process run.
      await waitFor(() => beats >= 2, { timeoutMs: 10_000, what: 'the watch to look' });
      return { processId, watching, activity };
    };

    it('returns the notification once the process exits, heartbeating meanwhile', async () => {
      const { session_id: processId } = await terminal({ command: 'sleep 0.5; echo built; exit 3', background: true, notify_on_complete: true });
      const activity = new MockActivityEnvironment();
      const beats: unknown[] = [];
      activity.on('heartbeat', (details: unknown) => beats.push(details));
      const result = await watch(activity, processId);
      expect(result).toEqual({
        processId,
        status: 'exited',
        exitCode: 3,
        command: 'sleep 0.5; echo built; exit 3',
        outputTail: 'built\n',
        notification: `[IMPORTANT: Background process ${String(processId)} exited (exit code 3).\nCommand: sleep 0.5; echo built; exit 3\nOutput:\nbuilt\n]`,
      });
      expect(beats.length).toBeGreaterThan(0);
    });

    it('several processes watched at once are each reported as they end', async () => {
      const started = await Promise.all(['0.2', '0.6', '1.0'].map(async (seconds) => String((await terminal({ command: `sleep ${seconds}; echo done-${seconds}`, background: true, notify_on_complete: true })).session_id)));
      const results = await Promise.all(started.map((processId) => watch(new MockActivityEnvironment(), processId)));
      expect(results.map((result) => [result.processId, result.status, result.outputTail])).toEqual([
        [started[0], 'exited', 'done-0.2\n'],
        [started[1], 'exited', 'done-0.6\n'],
        [started[2], 'exited', 'done-1.0\n'],
      ]);
    });

    it('tells in one look which of many processes still run, PTY ones among them', async () => {
      const quick = String((await terminal({ command: 'true', background: true })).session_id);
      const slow = String((await terminal({ command: 'sleep 30', background: true })).session_id);
      const pty = String((await terminal({ command: 'sleep 30', background: true, pty: true })).session_id);
      const background = context.environment.background;
      await waitFor(async () => (await background.poll(quick))?.info.status === 'exited', { timeoutMs: 10_000, what: 'the quick process to end' });
      expect(await background.running?.([quick, slow, pty, 'proc_000000000000', '../../etc/passwd'])).toEqual(new Set([slow, pty]));
      await background.kill(slow);
      expect(await background.running?.([quick, slow, pty])).toEqual(new Set([pty]));
    });

    it('keeps only the last 2000 characters of output', async () => {
      const { session_id: processId } = await terminal({ command: "head -c 5000 /dev/zero | tr '\\0' x; echo; echo END", background: true });
      const result = await watch(new MockActivityEnvironment(), processId);
      expect(result.outputTail).toHaveLength(2000);
      expect(result.outputTail.endsWith('x\nEND\n')).toBe(true);
      expect(result.notification).toMatch(/completed normally \(exit code 0\)/);
    });

    it('reports a process that is gone as lost', async () => {
      const result = await watch(new MockActivityEnvironment(), 'proc_000000000000');
      expect(result).toMatchObject({ processId: 'proc_000000000000', status: 'lost' });
      expect(result.notification).toMatch(/^\[IMPORTANT: Background process proc_000000000000 marked lost because the process backend disappeared/);
    });

    it('reports a process whose files went while it was watched as lost, naming its command', async () => {
      const { processId, watching } = await watchedRunning('sleep 3 # went');
      const stateDir = path.join(os.tmpdir(), 'hermes-bg', sessionId);
      for (const name of readdirSync(stateDir)) if (name.startsWith(String(processId))) rmSync(path.join(stateDir, name), { force: true });
      expect(await watching).toMatchObject({ processId, status: 'lost', command: 'sleep 3 # went' });
    });

    it('stops watching when the activity is cancelled', async () => {
      const { processId, watching, activity } = await watchedRunning('sleep 30');
      activity.cancel();
      await expect(watching).rejects.toBeInstanceOf(CancelledFailure);
      expect(await processTool({ action: 'poll', session_id: processId })).toMatchObject({ status: 'running' });
    });
  });
});
