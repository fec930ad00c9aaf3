// The `hermes-temporal` command as a user runs it: the built CLI in its own process, against the
// test server, with a scripted model. What it prints, what it exits with, what it leaves behind.
import { accessSync, chmodSync, constants, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { OPTIONAL_SDKS, optionalSdkLine, optionalSdkStatus } from '../../src/environments/optional-sdk';
import { startDevServer } from '../../src/temporal/dev-server';
import { CliTestbed, jsonLines, requireBuild } from '../helpers/cli';
import { tempDir, uniqueName } from '../helpers/session-harness';

requireBuild();

const testbed = new CliTestbed();
afterEach(() => testbed.cleanup());

const terminal = (command: string) => ({ tool_calls: [{ name: 'terminal', arguments: { command } }] });

describe('run --json', () => {
  test('prints session_started, each tool starting and finishing, then the final answer; the file is written', async () => {
    const sandbox = await testbed.sandbox({
      script: {
        turns: [
          { tool_calls: [{ name: 'write_file', arguments: { path: 'notes/result.txt', content: 'written by the model\n' } }] },
          terminal('cat notes/result.txt'),
          { content: 'The note is written.' },
        ],
      },
      env: { TEMPORAL_UI_URL: 'http://ui.example:8233' },
    });
    const sessionId = uniqueName('my-id');
    const result = await testbed.runCli(sandbox, ['run', '--json', '--session-id', sessionId, 'write a note']);

    expect(result.code).toBe(0);
    const events = jsonLines(result.stdout);
    expect(events.map((event) => [event.type, event.name])).toEqual([
      ['session_started', undefined],
      ['tool_started', 'write_file'],
      ['tool_finished', 'write_file'],
      ['tool_started', 'terminal'],
      ['tool_finished', 'terminal'],
      ['final', undefined],
    ]);
    expect(events[0]).toEqual({
      type: 'session_started',
      sessionId,
      workflowId: `hermes-session-${sessionId}`,
      uiUrl: `http://ui.example:8233/namespaces/default/workflows/hermes-session-${sessionId}`,
    });
    expect(events[1]).toMatchObject({ callId: 'call_0_0', summary: 'write_file: notes/result.txt' });
    expect(events[2]).toMatchObject({ callId: 'call_0_0', ok: true, durationMs: expect.any(Number) });
    expect(events[3]).toMatchObject({ callId: 'call_1_0', summary: 'terminal: cat notes/result.txt' });
    expect(events[4]).toMatchObject({ callId: 'call_1_0', ok: true, durationMs: expect.any(Number) });
    expect(String(events[4]!.preview)).toContain('written by the model');
    expect(events[5]).toMatchObject({ type: 'final', status: 'completed', answer: 'The note is written.', turns: 3, toolCalls: 2 });
    expect(readFileSync(path.join(sandbox.cwd, 'notes', 'result.txt'), 'utf8')).toBe('written by the model\n');
  });

  test('stops at --max-turns with exit code 2 and status max_turns', async () => {
    const sandbox = await testbed.sandbox({ script: { turns: [terminal('echo again'), terminal('echo again'), terminal('echo again')] } });
    const result = await testbed.runCli(sandbox, ['run', '--json', '--max-turns', '1', 'loop forever']);

    expect(result.code).toBe(2);
    expect(jsonLines(result.stdout).at(-1)).toMatchObject({ type: 'final', status: 'max_turns', turns: 1, toolCalls: 1 });
    expect(sandbox.model.requests).toHaveLength(1);
  });

  test('a rejected API key ends the run with exit code 1 and a reason naming HTTP 401', async () => {
    const sandbox = await testbed.sandbox({ script: { turns: [{ always_fail: { status: 401, message: 'Incorrect API key provided' } }] } });
    const result = await testbed.runCli(sandbox, ['run', '--json', 'anything']);

    expect(result.code).toBe(1);
    const final = jsonLines(result.stdout).at(-1);
    expect(final).toMatchObject({ type: 'final', status: 'failed' });
    expect(String(final?.reason)).toMatch(/HTTP 401/);
    expect(sandbox.model.requests).toHaveLength(1);
  });
});

test('a model URL where nothing listens fails the run within seconds, naming the URL', async () => {
  const sandbox = await testbed.sandbox({ env: { OPENAI_BASE_URL: 'http://127.0.0.1:59998/v1' } });
  const result = await testbed.runCli(sandbox, ['run', 'anything'], 30_000);

  expect(result.code).toBe(1);
  expect(result.stdout).toContain('Could not reach the model at http://127.0.0.1:59998/v1 (connection refused)');
  expect(result.durationMs).toBeLessThan(15_000);
  expect(result.stderr).not.toMatch(/"level":/);
});

test('with no API key and no base URL, run says so before starting anything', async () => {
  const sandbox = await testbed.sandbox({ env: { OPENAI_BASE_URL: undefined, OPENAI_API_KEY: undefined } });
  const result = await testbed.runCli(sandbox, ['run', 'anything']);

  expect(result.code).toBe(1);
  expect(result.stderr).toMatch(/No model configured: set OPENAI_API_KEY .* or OPENAI_BASE_URL/);
  expect(result.stdout).toBe('');
});

test('a TEMPORAL_ADDRESS where no server answers is named in the error', async () => {
  const sandbox = await testbed.sandbox({ env: { TEMPORAL_ADDRESS: '127.0.0.1:59997' } });
  const result = await testbed.runCli(sandbox, ['run', 'anything']);

  expect(result.code).toBe(1);
  expect(result.stderr).toContain('Cannot reach the Temporal server at 127.0.0.1:59997 (TEMPORAL_ADDRESS)');
});

test('a bad --max-turns fails before anything starts, naming the key and where the value came from', async () => {
  const sandbox = await testbed.sandbox();
  const result = await testbed.runCli(sandbox, ['run', '--max-turns', 'abc', 'anything']);

  expect(result.code).toBe(1);
  expect(result.stderr).toContain('session.max_turns');
  expect(result.stderr).toContain('command-line flags');
  expect(result.stdout).toBe('');
  expect(sandbox.model.requests).toHaveLength(0);
});

test('human output shows each tool with its emoji as it starts, then the completed line', async () => {
  const sandbox = await testbed.sandbox({ script: { turns: [terminal('sleep 1; echo hello-human'), { content: 'Said hello.' }] } });
  const run = testbed.cli(sandbox, ['run', 'say hello']);

  // The line appears while the command is still running, not in a summary at the end.
  await run.waitForOutput(/^ {2}💻 terminal: sleep 1; echo hello-human$/m, 20_000);
  expect(run.stdout).not.toContain('✔');
  const result = await run.waitForExit(30_000);

  expect(result.code).toBe(0);
  const lines = result.stdout.split('\n');
  expect(lines[0]).toMatch(/^▶ Session \S+ \(workflow hermes-session-\S+\)$/);
  expect(lines).toContainEqual(expect.stringMatching(/^ {2}✓ terminal \d+\.\ds → .*hello-human/));
  expect(lines).toContain('✔ completed after 2 turns and 1 tool call');
  expect(lines.at(-2)).toBe('Said hello.');
});

test('sessions and show list and show what a run produced', async () => {
  const sandbox = await testbed.sandbox({ script: { turns: [terminal('echo listed'), { content: 'Listed.' }] } });
  const sessionId = uniqueName('listed');
  expect((await testbed.runCli(sandbox, ['run', '--json', '--session-id', sessionId, 'list me'])).code).toBe(0);

  const listed = await testbed.runCli(sandbox, ['sessions', '--json']);
  expect(listed.code).toBe(0);
  const sessions = JSON.parse(listed.stdout) as Record<string, unknown>[];
  expect(sessions).toEqual([
    expect.objectContaining({
      sessionId,
      workflowId: `hermes-session-${sessionId}`,
      task: 'list me',
      model: 'scripted',
      cwd: sandbox.cwd,
      status: 'completed',
      answer: 'Listed.',
    }),
  ]);

  const shown = await testbed.runCli(sandbox, ['show', sessionId, '--json'], 15_000);
  expect(shown.code).toBe(0);
  const { session, live, messages } = JSON.parse(shown.stdout) as {
    session: Record<string, unknown>;
    live?: string;
    messages: { role: string; content: string | null; name?: string; toolCalls?: { name: string }[] }[];
  };
  expect(session).toMatchObject({ sessionId, status: 'completed' });
  expect(live).toBe('completed');
  expect(messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant']);
  expect(messages[1]!.content).toBe('list me');
  expect(messages[2]!.toolCalls).toEqual([expect.objectContaining({ name: 'terminal' })]);
  expect(messages[3]).toMatchObject({ name: 'terminal' });
  expect(JSON.parse(messages[3]!.content!)).toMatchObject({ output: 'listed', exit_code: 0 });
  expect(messages[4]!.content).toBe('Listed.');

  // For people: a header row; show counts the tools offered apart from the calls made.
  const table = await testbed.runCli(sandbox, ['sessions']);
  expect(table.stdout.split('\n')[0]).toMatch(/^SESSION\s+STATUS\s+CREATED\s+MODEL\s+TASK$/);
  expect(table.stdout).toContain(sessionId);
  const human = await testbed.runCli(sandbox, ['show', sessionId], 15_000);
  expect(human.stdout).toMatch(/\d+ tools available, 1 tool call made/);

  const missing = await testbed.runCli(sandbox, ['show', 'no-such-session']);
  expect(missing.code).toBe(1);
  expect(missing.stderr).toContain("No session 'no-such-session'");
});

test('tools lists the built-in tools with emoji and toolset, and the cloud backends’ packages; --toolsets lists file and terminal', async () => {
  const sandbox = await testbed.sandbox();
  const tools = await testbed.runCli(sandbox, ['tools', '--json']);
  expect(tools.code).toBe(0);
  const rows = JSON.parse(tools.stdout) as { name: string; toolset: string; emoji: string; available: boolean }[];
  const byName = new Map(rows.map((row) => [row.name, row]));
  expect(byName.get('terminal')).toMatchObject({ toolset: 'terminal', emoji: '💻', available: true });
  for (const name of ['read_file', 'write_file', 'patch', 'search_files']) {
    expect(byName.get(name)).toMatchObject({ toolset: 'file', available: true });
    expect(byName.get(name)!.emoji).toBeTruthy();
  }

  const toolsets = await testbed.runCli(sandbox, ['tools', '--toolsets', '--json']);
  expect(toolsets.code).toBe(0);
  const sets = JSON.parse(toolsets.stdout) as { name: string; tools: string[] }[];
  expect(sets.find((set) => set.name === 'file')?.tools).toEqual(expect.arrayContaining(['read_file', 'write_file', 'patch', 'search_files']));
  expect(sets.find((set) => set.name === 'terminal')?.tools).toContain('terminal');

  // The cloud backends' optional SDKs: one line each, installed or the line that installs it.
  const text = await testbed.runCli(sandbox, ['tools']);
  expect(text.code).toBe(0);
  for (const sdk of OPTIONAL_SDKS) expect(text.stdout).toContain(optionalSdkLine(optionalSdkStatus(sdk)));
});

test('run against a server that lacks the search attributes registers them and succeeds', async () => {
  const server = await startDevServer({ headless: true, searchAttributes: false });
  testbed.onCleanup(() => server.stop());
  const connection = await Connection.connect({ address: server.address });
  testbed.onCleanup(() => connection.close());
  const customAttributes = async () =>
    Object.keys((await connection.operatorService.listSearchAttributes({ namespace: 'default' })).customAttributes ?? {});
  expect(await customAttributes()).not.toContain('HermesStatus');

  const sandbox = await testbed.sandbox({ address: server.address, script: { turns: [terminal('echo fresh'), { content: 'Fresh server.' }] } });
  const result = await testbed.runCli(sandbox, ['run', '--json', 'on a fresh server']);

  expect(result.code).toBe(0);
  expect(jsonLines(result.stdout).at(-1)).toMatchObject({ type: 'final', status: 'completed', answer: 'Fresh server.' });
  expect(await customAttributes()).toEqual(
    expect.arrayContaining(['HermesStatus', 'HermesModel', 'HermesParentSession', 'HermesToolCalls', 'HermesPendingApprovals', 'HermesStopReason']),
  );
});

describe('temporal-cli --no-install', () => {
  test('prints the path of an executable Temporal CLI', async () => {
    const sandbox = await testbed.sandbox();
    const result = await testbed.runCli(sandbox, ['temporal-cli', '--no-install']);

    expect(result.code).toBe(0);
    const printed = result.stdout.trim();
    if (process.env.TEMPORAL_CLI_PATH) expect(printed).toBe(process.env.TEMPORAL_CLI_PATH);
    expect(path.isAbsolute(printed)).toBe(true);
    expect(() => accessSync(printed, constants.X_OK)).not.toThrow();
  });

  test('prints TEMPORAL_CLI_PATH when it is set', async () => {
    const dir = tempDir('hermes-fake-cli-');
    testbed.onCleanup(() => rmSync(dir, { recursive: true, force: true }));
    const fake = path.join(dir, 'temporal');
    writeFileSync(fake, '#!/bin/sh\necho fake\n');
    chmodSync(fake, 0o755);
    const sandbox = await testbed.sandbox({ env: { TEMPORAL_CLI_PATH: fake } });
    const result = await testbed.runCli(sandbox, ['temporal-cli', '--no-install']);

    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(fake);
  });
});

test('the demo records its own approvals as the demo’s, removes its folders and leaves the user’s session store alone', async () => {
  // The demo starts its own server and model: no address, no key.
  const sandbox = await testbed.sandbox({ env: { TEMPORAL_ADDRESS: undefined, OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, HERMES_MODEL: undefined } });
  const result = await testbed.runCli(sandbox, ['demo', '--json'], 120_000);

  expect(result.code).toBe(0);
  const events = jsonLines(result.stdout);
  expect(events.at(-1)).toMatchObject({ type: 'final', status: 'completed' });
  const approved = events.find((event) => event.type === 'tool_finished' && String(event.preview).includes('approval'));
  expect(String(approved?.preview)).toContain('approved by the demo itself');
  expect(String(approved?.preview)).not.toContain('approved by the user');
  const workdir = /removed its folder (\S+)/.exec(result.stderr)?.[1];
  expect(workdir).toBeDefined();
  expect(existsSync(workdir!)).toBe(false);
  expect(existsSync(path.join(sandbox.home, 'sessions.db'))).toBe(false);
  // The snapshots of its folder went with it: nothing of the demo is left in the home's checkpoints.
  const checkpoints = path.join(sandbox.home, 'checkpoints');
  expect(existsSync(checkpoints) ? readdirSync(checkpoints) : []).toEqual([]);
}, 150_000);
