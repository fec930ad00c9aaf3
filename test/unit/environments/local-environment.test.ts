// The local terminal backend and the terminal tool on top of it: what a command's output, exit
// code, timeout and cancellation look like to the model, and that nothing a command starts outlives it.
import '../../../src/tools/terminal';
import childProcess, { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BoundedOutput, truncateMiddle, truncationNotice } from '../../../src/environments/bounded-output';
import { LocalEnvironment } from '../../../src/environments/local-environment';
import { shellQuote } from '../../../src/environments/shell-quote';
import { smallSpawner } from '../../../src/environments/small-spawner';
import { registry } from '../../../src/registry/registry';
import { DEFAULT_TOOL_SETTINGS, type ToolContext } from '../../../src/registry/tool-entry';
import { exitCodeMeaning, lastCommandName } from '../../../src/tools/terminal-output';
import { createToolContext } from '../../helpers/tool-context';
import { markedSleep, pidsRunning } from '../../helpers/processes';

let dir: string;

beforeEach(() => {
  // Real path: the backend reports `pwd -P`, which resolves symlinks such as macOS's /tmp.
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'hermes-local-env-')));
  mkdirSync(path.join(dir, 'sub'));
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

const environment = (options?: ConstructorParameters<typeof LocalEnvironment>[1]) =>
  new LocalEnvironment({ backend: 'local', cwd: dir }, options);

async function terminal(args: Record<string, unknown>, context: ToolContext = createToolContext(dir)) {
  return JSON.parse(await registry.dispatch('terminal', args, context)) as {
    output: string;
    exit_code: number;
    error: string | null;
    exit_code_meaning?: string;
    status?: string;
  };
}


async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return condition();
}

describe('LocalEnvironment.exec', () => {
  it('a command too long for the system once quoted is not started, and says what to do (not spawn E2BIG)', async () => {
    // Under the terminal tool's 100,000 characters, but each quote takes four once quoted for bash.
    const quotes = `echo ${"'x'".repeat(30_000)}`;
    const result = await environment().exec({ command: quotes, timeoutMs: 10_000 });
    expect(result).toMatchObject({ exitCode: 126, timedOut: false });
    expect(result.output).toMatch(/^The command was not started: quoted for the shell it is \d+ bytes, and the system passes at most 131071 in one argument\. Write the script to a file/);
    // One just under the limit runs.
    expect(await environment().exec({ command: `echo ${'y'.repeat(100_000)} | wc -c`, timeoutMs: 10_000 })).toMatchObject({ exitCode: 0, output: '100001\n' });
  });

  it('returns the exit code of the command', async () => {
    const env = environment();
    expect((await env.exec({ command: 'true', timeoutMs: 10_000 })).exitCode).toBe(0);
    expect((await env.exec({ command: 'exit 3', timeoutMs: 10_000 })).exitCode).toBe(3);
    expect((await env.exec({ command: 'false', timeoutMs: 10_000 })).exitCode).toBe(1);
  });

  it('interleaves stderr with stdout in the order it was written', async () => {
    const result = await environment().exec({
      command: 'echo out1; echo err1 >&2; echo out2; echo err2 >&2',
      timeoutMs: 10_000,
    });
    expect(result.output).toBe('out1\nerr1\nout2\nerr2\n');
  });

  it('passes output to onOutput as it arrives', async () => {
    const chunks: string[] = [];
    await environment().exec({ command: 'echo one; echo two', timeoutMs: 10_000, onOutput: (chunk) => chunks.push(chunk) });
    expect(chunks.join('')).toBe('one\ntwo\n');
  });

  it('stops a command at its timeout and kills everything it started', async () => {
    const child = markedSleep(30);
    const started = Date.now();
    const result = await environment({ killGraceMs: 500 }).exec({
      command: `${child} & echo started; sleep 30`,
      timeoutMs: 1000,
    });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result).toMatchObject({ exitCode: 124, timedOut: true, interrupted: false });
    expect(result.output).toMatch(/\[Command timed out after 1s\]$/);
    expect(result.output).toContain('started');
    expect(await waitUntil(() => pidsRunning(child).length === 0, 5000)).toBe(true);
  });

  it('kills a command quickly when the abort signal fires', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const started = Date.now();
    const result = await environment().exec({ command: 'sleep 30', timeoutMs: 60_000, signal: controller.signal });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(result).toMatchObject({ exitCode: 130, interrupted: true, timedOut: false });
    expect(result.output).toContain('[Command interrupted]');
  });

  it('does not start a command when the signal is already aborted', async () => {
    // Started and then killed is not enough: a kill sent while a sandbox starts can miss the
    // command it forks a moment later, which then runs on.
    const helperStarts = jest.spyOn(smallSpawner, 'start');
    const spawns = jest.spyOn(childProcess, 'spawn');
    const marker = path.join(dir, 'ran');
    try {
      const result = await environment().exec({
        command: `touch ${shellQuote(marker)}; sleep 0.5; touch ${shellQuote(marker)}`,
        timeoutMs: 10_000,
        signal: AbortSignal.abort(),
      });
      expect(result).toMatchObject({ exitCode: 130, interrupted: true, timedOut: false, cwd: dir });
      expect(helperStarts).not.toHaveBeenCalled();
      expect(spawns).not.toHaveBeenCalled();
      await new Promise((resolve) => setTimeout(resolve, 800));
      expect(existsSync(marker)).toBe(false);
    } finally {
      helperStarts.mockRestore();
      spawns.mockRestore();
    }
  });

  it('returns promptly even when a background grandchild keeps the output pipe open', async () => {
    const started = Date.now();
    const result = await environment().exec({ command: '(sleep 5 &); echo done', timeoutMs: 30_000 });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(result.exitCode).toBe(0);
    expect(result.output).toBe('done\n');
  });

  it('keeps the head and tail of long output with a notice of what was dropped', async () => {
    const result = await environment().exec({
      command: "printf HEAD; head -c 20000 /dev/zero | tr '\\0' x; printf TAIL",
      timeoutMs: 10_000,
      maxOutputChars: 1000,
    });
    expect(result.output.startsWith('HEAD')).toBe(true);
    expect(result.output.endsWith('TAIL')).toBe(true);
    expect(result.output).toContain('\n\n... [OUTPUT TRUNCATED - 19,008 chars omitted out of 20,008 total] ...\n\n');
    expect(result.output.replace(/\n\n\.\.\. \[.*\] \.\.\.\n\n/, '')).toHaveLength(1000);
  });

  it('follows a cd into the next command and reports the new directory', async () => {
    const env = environment();
    const moved = await env.exec({ command: 'cd sub', timeoutMs: 10_000 });
    expect(moved.cwd).toBe(path.join(dir, 'sub'));
    expect(env.handle.cwd).toBe(path.join(dir, 'sub'));
    expect((await env.exec({ command: 'pwd', timeoutMs: 10_000 })).output).toBe(`${path.join(dir, 'sub')}\n`);
  });

  it('runs in an explicit directory without moving the session', async () => {
    const env = environment();
    const result = await env.exec({ command: 'pwd; cd /', cwd: path.join(dir, 'sub'), timeoutMs: 10_000 });
    expect(result.output).toBe(`${path.join(dir, 'sub')}\n`);
    expect(env.handle.cwd).toBe(dir);
  });

  it('fails with exit code 126 when the working directory does not exist', async () => {
    const result = await environment().exec({ command: 'echo never', cwd: path.join(dir, 'missing'), timeoutMs: 10_000 });
    expect(result.exitCode).toBe(126);
    expect(result.output).not.toContain('never');
  });

  describe('secrets', () => {
    const secrets = {
      OPENAI_API_KEY: 'sk-hidden-openai',
      FOO_TOKEN: 'hidden-foo-token',
      BAR_SECRET: 'hidden-bar-secret',
      SOME_KEY: 'hidden-some-key',
      // Not secret-looking, still not for commands: only allowlisted names pass.
      PGPASSWORD: 'hidden-pg-password',
      DATABASE_URL: 'postgres://user:hidden-db-password@127.0.0.1/db',
      HERMES_TEST_PLAIN: 'plain-but-not-allowlisted',
      LC_TIME: 'C.UTF-8',
    };
    const saved: Record<string, string | undefined> = {};

    beforeEach(() => {
      for (const [name, value] of Object.entries(secrets)) {
        saved[name] = process.env[name];
        process.env[name] = value;
      }
    });

    afterEach(() => {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    });

    it('gives commands only the allowlisted variables (PATH, HOME, LC_*, ...), none of the worker\'s others', async () => {
      const { output } = await environment().exec({ command: 'env', timeoutMs: 10_000 });
      expect(output).toContain('LC_TIME=C.UTF-8');
      expect(output).toMatch(/^PATH=/m);
      for (const name of ['OPENAI_API_KEY', 'FOO_TOKEN', 'BAR_SECRET', 'SOME_KEY', 'PGPASSWORD', 'DATABASE_URL', 'HERMES_TEST_PLAIN']) {
        expect(output).not.toContain(`${name}=`);
        expect(output).not.toContain(secrets[name as keyof typeof secrets]);
      }
    });

    it('shows a secret the user listed in envPassthrough', async () => {
      const { output } = await environment({ envPassthrough: ['FOO_TOKEN'] }).exec({ command: 'env', timeoutMs: 10_000 });
      expect(output).toContain('FOO_TOKEN=hidden-foo-token');
      expect(output).not.toContain('sk-hidden-openai');
    });

    it('hides the secrets from the terminal tool output too', async () => {
      const { output } = await terminal({ command: 'env' });
      expect(output).toContain('LC_TIME=C.UTF-8');
      expect(output).not.toContain('hidden-db-password');
      expect(output).not.toContain('sk-hidden-openai');
      expect(output).not.toContain('hidden-bar-secret');
    });
  });
});

describe('terminal tool', () => {
  it('returns output and exit code as JSON', async () => {
    expect(await terminal({ command: 'echo hello; exit 2' })).toEqual({ output: 'hello', exit_code: 2, error: null });
  });

  it('reports a timeout with exit code 124 and an error naming the limit', async () => {
    const result = await terminal({ command: 'echo started; sleep 30', timeout: 1 });
    expect(result.exit_code).toBe(124);
    expect(result.output.startsWith('started')).toBe(true);
    expect(result.output.endsWith('[Command timed out after 1s]')).toBe(true);
    expect(result.error).toBe('Command timed out after 1 seconds');
  });

  it('kills background children of a command that timed out', async () => {
    const child = markedSleep(30);
    // `30&` (no space): the foreground guard refuses ` & `, which starts a long-lived process.
    const result = await terminal({ command: `${child}& echo started; sleep 30`, timeout: 1 });
    expect(result.exit_code).toBe(124);
    expect(result.output).toContain('started');
    expect(await waitUntil(() => pidsRunning(child).length === 0, 5000)).toBe(true);
  });

  it('lets a cancellation propagate instead of returning a result', async () => {
    const controller = new AbortController();
    const reason = new Error('session cancelled');
    setTimeout(() => controller.abort(reason), 200);
    const started = Date.now();
    await expect(
      registry.dispatch('terminal', { command: 'sleep 30' }, createToolContext(dir, { signal: controller.signal })),
    ).rejects.toBe(reason);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('keeps the head and tail of output beyond the configured limit', async () => {
    const context = createToolContext(dir, {
      settings: { terminal: { ...DEFAULT_TOOL_SETTINGS.terminal, maxOutputChars: 2000 } },
    });
    const { output } = await terminal({ command: "printf START; head -c 1234567 /dev/zero | tr '\\0' y; printf END" }, context);
    expect(output.startsWith('START')).toBe(true);
    expect(output.endsWith('END')).toBe(true);
    expect(output).toContain('... [OUTPUT TRUNCATED - 1,232,575 chars omitted out of 1,234,575 total] ...');
  });

  it('explains a grep that found nothing', async () => {
    writeFileSync(path.join(dir, 'file.txt'), 'something else\n');
    const result = await terminal({ command: 'grep nothing file.txt' });
    expect(result).toMatchObject({ exit_code: 1, exit_code_meaning: 'No matches found (not an error)' });
  });

  it('gives no explanation for an ordinary failure', async () => {
    const result = await terminal({ command: 'ls does-not-exist' });
    expect(result.exit_code).not.toBe(0);
    expect(result).not.toHaveProperty('exit_code_meaning');
  });

  it('blocks a workdir containing shell metacharacters, naming the character', async () => {
    const marker = path.join(dir, 'x');
    writeFileSync(marker, '');
    const result = await terminal({ command: 'pwd', workdir: `/tmp; rm -rf ${marker}` });
    expect(result.status).toBe('blocked');
    expect(result.exit_code).toBe(-1);
    expect(result.error).toContain("disallowed character ';'");
    expect(existsSync(marker)).toBe(true);
  });

  it('refuses a timeout above the foreground maximum', async () => {
    const result = await terminal({ command: 'echo hi', timeout: 601 });
    expect(result.error).toContain('Foreground timeout 601s exceeds the maximum of 600s');
    expect(result).not.toHaveProperty('exit_code');
  });

  it('keeps the directory from a cd for the next call', async () => {
    const context = createToolContext(dir);
    await terminal({ command: 'cd sub' }, context);
    expect(context.environment.handle.cwd).toBe(path.join(dir, 'sub'));
    expect((await terminal({ command: 'pwd' }, context)).output).toBe(path.join(dir, 'sub'));
  });

  it('runs one call in a workdir without changing the session directory', async () => {
    const context = createToolContext(dir);
    expect((await terminal({ command: 'pwd', workdir: path.join(dir, 'sub') }, context)).output).toBe(path.join(dir, 'sub'));
    expect(context.environment.handle.cwd).toBe(dir);
    expect((await terminal({ command: 'pwd' }, context)).output).toBe(dir);
  });

  it('resolves a relative workdir against the workspace directory', async () => {
    expect((await terminal({ command: 'pwd', workdir: 'sub' })).output).toBe(path.join(dir, 'sub'));
  });

  it('strips colour codes from the output', async () => {
    const { output } = await terminal({ command: "printf '\\033[31mred\\033[0m and \\033[1;32mbold green\\033[0m'" });
    expect(output).toBe('red and bold green');
  });
});

describe('exit code meanings', () => {
  it.each<[command: string, exitCode: number, meaning: string | undefined]>([
    ['grep foo file', 1, 'No matches found (not an error)'],
    ['grep foo file', 2, undefined],
    ['grep foo file', 0, undefined],
    ['cat file | grep -q foo', 1, 'No matches found (not an error)'],
    ['rg pattern src', 1, 'No matches found (not an error)'],
    ['/usr/bin/grep x y', 1, 'No matches found (not an error)'],
    ['LC_ALL=C grep x y', 1, 'No matches found (not an error)'],
    ['grep x y; echo done', 1, undefined],
    ['diff a b', 1, 'Files differ (expected, not an error)'],
    ['test -f missing', 1, 'Condition evaluated to false (expected, not an error)'],
    ['[ -f missing ]', 1, 'Condition evaluated to false (expected, not an error)'],
    ['curl https://example.invalid', 6, 'Could not resolve host'],
    ['curl http://127.0.0.1:1', 7, 'Failed to connect to host'],
    ['curl -f https://x/404', 22, 'HTTP response code indicated error (e.g. 404, 500)'],
    ['make && curl -m 1 x', 28, 'Operation timed out'],
    ['find / -name x', 1, 'Some directories were inaccessible (partial results may still be valid)'],
    ['git diff --exit-code', 1, "Non-zero exit (often normal — e.g. 'git diff' returns 1 when files differ)"],
    ["bash -c 'exit 7'", 7, undefined],
    ['', 1, undefined],
  ])('%j exiting %d means %j', (command, exitCode, meaning) => {
    expect(exitCodeMeaning(command, exitCode)).toBe(meaning);
  });

  it.each<[command: string, name: string | undefined]>([
    ['ls -la', 'ls'],
    ['cat f | sort | uniq -c', 'uniq'],
    ['make || echo failed', 'echo'],
    ['cd dir && npm test', 'npm'],
    ['a; b\nc --flag', 'c'],
    ['FOO=1 BAR=2 node script.js', 'node'],
    ['/usr/local/bin/python3 x.py', 'python3'],
    ['"grep" x', 'grep'],
    ['   ', undefined],
  ])('the last command of %j is %j', (command, name) => {
    expect(lastCommandName(command)).toBe(name);
  });
});

describe('shellQuote', () => {
  it.each([
    '',
    'plain',
    'with space',
    "it's",
    "''",
    '"double"',
    '$HOME and ${PATH}',
    '`id` $(whoami)',
    'back\\slash',
    'new\nline',
    'tab\there',
    '* ? [abc] ~',
    '!history',
    ';&|<>(){}',
    '-n',
    'héllo ✓',
    "mixed 'single' and \"double\" \\ $x",
  ])('passes %j through bash unchanged', (value) => {
    const result = spawnSync('bash', ['-c', `printf %s ${shellQuote(value)}`], { encoding: 'utf8' });
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(value);
  });

  it('leaves simple words unquoted', () => {
    expect(shellQuote('/usr/bin/file-name_1.txt')).toBe('/usr/bin/file-name_1.txt');
    expect(shellQuote('a b')).toBe("'a b'");
  });
});

describe('bounded output', () => {
  it('leaves text within the budget unchanged', () => {
    expect(truncateMiddle('short', 5)).toBe('short');
    const output = new BoundedOutput(10);
    output.append('0123');
    output.append('456789');
    expect(output.toString()).toBe('0123456789');
    expect(output.totalChars).toBe(10);
  });

  it('keeps the first 40% and the last 60% of the budget', () => {
    const text = 'abcdefghijklmnopqrstuvwxyz';
    expect(truncateMiddle(text, 10)).toBe(`abcd${truncationNotice(16, 26)}uvwxyz`);
  });

  it('formats the notice with thousands separators', () => {
    expect(truncationNotice(1_234_567, 12_345_678)).toBe(
      '\n\n... [OUTPUT TRUNCATED - 1,234,567 chars omitted out of 12,345,678 total] ...\n\n',
    );
  });

  it('keeps the same head and tail however the output arrives in chunks', () => {
    const text = Array.from({ length: 500 }, (_, index) => `line ${index}\n`).join('');
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (const budget of [1, 10, 333, 1000, text.length, text.length + 1]) {
      const output = new BoundedOutput(budget);
      for (let position = 0; position < text.length; ) {
        const size = 1 + Math.floor(random() * 200);
        output.append(text.slice(position, position + size));
        position += size;
      }
      expect(output.toString()).toBe(truncateMiddle(text, budget));
      expect(output.totalChars).toBe(text.length);
    }
  });

  it('reports the most recent characters', () => {
    const output = new BoundedOutput(10);
    output.append('0123456789abcdefghij');
    expect(output.lastChars(3)).toBe('hij');
  });
});
