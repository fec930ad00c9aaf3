// Hook contracts: pre_tool_call blocks with the hook's reason and fails closed when a hook throws
// or overruns; observers' failures are logged and ignored; transforms replace text; shell hooks
// read the event on stdin and block with JSON on stdout.
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { HookRegistry } from '../../../src/hooks/hook-registry';
import { registerShellHooks, splitCommand, toolMatcher } from '../../../src/hooks/shell-hooks';
import { afterCall, checkBeforeCall, preToolCallPayload } from '../../../src/hooks/tool-call-hooks';
import { captureLogger } from '../registry/support';
import { tempDir } from '../../helpers/temp-dirs';

const call = preToolCallPayload({ sessionId: 's1', toolCallId: 'c1', name: 'terminal' }, { command: 'ls' });

describe('pre_tool_call', () => {
  it('allows when no hook objects, and blocks with the first block message', async () => {
    const hooks = new HookRegistry();
    expect(await hooks.preToolCall(call)).toEqual({ action: 'allow' });
    hooks.register({ event: 'pre_tool_call', source: 'plugin:a', callback: () => undefined });
    hooks.register({ event: 'pre_tool_call', source: 'plugin:b', callback: (payload) => (payload.tool_name === 'terminal' ? { action: 'block', message: 'no shell today' } : undefined) });
    hooks.register({ event: 'pre_tool_call', source: 'plugin:c', callback: () => ({ action: 'block', message: 'second' }) });
    expect(await hooks.preToolCall(call)).toEqual({ action: 'block', message: 'no shell today', source: 'plugin:b' });
  });

  it('ignores a block without a message, as the original does', async () => {
    const hooks = new HookRegistry();
    hooks.register({ event: 'pre_tool_call', source: 'plugin:a', callback: () => ({ action: 'block' }) });
    expect(await hooks.preToolCall(call)).toEqual({ action: 'allow' });
  });

  it('fails closed when a hook throws', async () => {
    const { logger, warnings } = captureLogger();
    const hooks = new HookRegistry(logger);
    hooks.register({ event: 'pre_tool_call', source: 'plugin:flaky', callback: () => { throw new Error('db down'); } });
    const decision = await hooks.preToolCall(call);
    expect(decision).toMatchObject({ action: 'block', source: 'plugin:flaky' });
    expect(decision.action === 'block' && decision.message).toContain('db down');
    expect(warnings().some((warning) => warning.includes('db down'))).toBe(true);
  });

  it('fails closed when a hook overruns its timeout', async () => {
    const hooks = new HookRegistry();
    hooks.register({ event: 'pre_tool_call', source: 'plugin:slow', timeoutMs: 50, callback: () => new Promise((resolve) => setTimeout(resolve, 2000).unref()) });
    const started = Date.now();
    const decision = await hooks.preToolCall(call);
    expect(Date.now() - started).toBeLessThan(1500);
    expect(decision.action === 'block' && decision.message).toContain('timed out');
  });

  it('an "approve" answer blocks: the gate cannot be asked from inside the call', async () => {
    const hooks = new HookRegistry();
    hooks.register({ event: 'pre_tool_call', source: 'plugin:ask', callback: () => ({ action: 'approve', message: 'needs a human' }) });
    expect(await hooks.preToolCall(call)).toMatchObject({ action: 'block', message: 'needs a human' });
  });

  it('a hook cannot change what the next hook sees', async () => {
    const hooks = new HookRegistry();
    const seen: unknown[] = [];
    hooks.register({ event: 'pre_tool_call', source: 'plugin:a', callback: (payload) => { (payload.args as Record<string, unknown>).command = 'rm -rf /'; } });
    hooks.register({ event: 'pre_tool_call', source: 'plugin:b', callback: (payload) => void seen.push(payload.args) });
    await hooks.preToolCall(call);
    expect(seen).toEqual([{ command: 'ls' }]);
  });

  it('a block is told to post_tool_call observers with status "blocked"', async () => {
    const hooks = new HookRegistry();
    const observed: Record<string, unknown>[] = [];
    hooks.register({ event: 'pre_tool_call', source: 'plugin:a', callback: () => ({ action: 'block', message: 'nope' }) });
    hooks.register({ event: 'post_tool_call', source: 'plugin:b', callback: (payload) => void observed.push(payload) });
    await checkBeforeCall(hooks, call);
    expect(observed).toEqual([expect.objectContaining({ tool_name: 'terminal', status: 'blocked', error_type: 'plugin_block', result: '{"error":"nope"}' })]);
  });
});

describe('post_tool_call and transforms', () => {
  it('post_tool_call observes status and duration; a throwing observer is logged and ignored', async () => {
    const { logger, warnings } = captureLogger();
    const hooks = new HookRegistry(logger);
    const observed: Record<string, unknown>[] = [];
    hooks.register({ event: 'post_tool_call', source: 'plugin:bad', callback: () => { throw new Error('observer broke'); } });
    hooks.register({ event: 'post_tool_call', source: 'plugin:good', callback: (payload) => void observed.push(payload) });
    expect(await afterCall(hooks, call, '{"error":"failed","error_type":"x"}', 12)).toBe('{"error":"failed","error_type":"x"}');
    expect(observed).toEqual([expect.objectContaining({ status: 'error', duration_ms: 12, error_message: 'failed', error_type: 'x' })]);
    expect(warnings().some((warning) => warning.includes('observer broke'))).toBe(true);
  });

  it('transform_tool_result: the first string replaces the result; a failing transform keeps it', async () => {
    const hooks = new HookRegistry();
    hooks.register({ event: 'transform_tool_result', source: 'plugin:bad', callback: () => { throw new Error('x'); } });
    hooks.register({ event: 'transform_tool_result', source: 'plugin:none', callback: () => 42 });
    hooks.register({ event: 'transform_tool_result', source: 'plugin:upper', callback: (payload) => String(payload.result).toUpperCase() });
    expect(await afterCall(hooks, call, '{"output":"ok"}', 1)).toBe('{"OUTPUT":"OK"}');
  });

  it('transform_terminal_output replaces the output text', async () => {
    const hooks = new HookRegistry();
    hooks.register({ event: 'transform_terminal_output', source: 'plugin:t', callback: (payload) => `[${String(payload.returncode)}] ${String(payload.output)}` });
    expect(await hooks.transform('transform_terminal_output', { command: 'ls', output: 'a b', returncode: 0, task_id: 's', env_type: 'local' }, 'a b')).toBe('[0] a b');
  });

  it('an unknown event is kept with a warning', () => {
    const { logger, warnings } = captureLogger();
    const hooks = new HookRegistry(logger);
    hooks.register({ event: 'on_lunch', source: 'plugin:a', callback: () => undefined });
    expect(hooks.list()).toHaveLength(1);
    expect(warnings()[0]).toContain("Unknown hook event 'on_lunch'");
  });
});

describe('shell hooks', () => {
  const dir = tempDir('hermes-shell-hooks-');
  const script = (name: string, body: string) => {
    const file = path.join(dir, name);
    writeFileSync(file, `#!/bin/sh\n${body}\n`);
    chmodSync(file, 0o755);
    return file;
  };

  it('gets the event as JSON on stdin and blocks with {"decision": "block", "reason"}', async () => {
    const seen = path.join(dir, 'seen.json');
    const hook = script('block.sh', `cat > '${seen}'\necho '{"decision": "block", "reason": "terminal is off limits"}'`);
    const hooks = new HookRegistry();
    registerShellHooks(hooks, [{ event: 'pre_tool_call', command: hook, matcher: 'term.*', timeout_seconds: 5 }], '/work/project');
    expect(await hooks.preToolCall(call)).toEqual({ action: 'block', message: 'terminal is off limits', source: `shell:${hook}` });
    const input = JSON.parse(readFileSync(seen, 'utf8')) as Record<string, unknown>;
    expect(input).toMatchObject({ hook_event_name: 'pre_tool_call', tool_name: 'terminal', tool_input: { command: 'ls' }, session_id: 's1', cwd: '/work/project' });
    // The matcher is on the whole tool name.
    expect(await hooks.preToolCall({ ...call, tool_name: 'read_file' })).toEqual({ action: 'allow' });
  });

  it('a shell hook that fails or overruns blocks pre_tool_call; one that prints nothing allows', async () => {
    const failing = new HookRegistry();
    registerShellHooks(failing, [{ event: 'pre_tool_call', command: script('fail.sh', 'exit 3'), timeout_seconds: 5 }], '/');
    expect((await failing.preToolCall(call)).action).toBe('block');
    const slow = new HookRegistry();
    registerShellHooks(slow, [{ event: 'pre_tool_call', command: script('slow.sh', 'sleep 5'), timeout_seconds: 0.2 }], '/');
    expect((await slow.preToolCall(call)).action).toBe('block');
    const silent = new HookRegistry();
    registerShellHooks(silent, [{ event: 'pre_tool_call', command: script('ok.sh', 'cat > /dev/null'), timeout_seconds: 5 }], '/');
    expect(await silent.preToolCall(call)).toEqual({ action: 'allow' });
  });

  it("runs a hook's bare program, and what the hook looks up, from the trusted PATH, never the workspace's node_modules/.bin", async () => {
    const workspace = tempDir('hermes-hook-workspace-');
    const planted = path.join(workspace, 'node_modules', '.bin');
    mkdirSync(planted, { recursive: true });
    const marker = path.join(dir, 'planted-ran');
    for (const name of ['sh', 'cat']) {
      writeFileSync(path.join(planted, name), `#!/bin/sh\ntouch '${marker}'\n`);
      chmodSync(path.join(planted, name), 0o755);
    }
    const saved = process.env.PATH;
    process.env.PATH = `${planted}:${saved}`;
    try {
      const hooks = new HookRegistry();
      registerShellHooks(hooks, [{ event: 'pre_tool_call', command: `sh -c 'cat > /dev/null; echo {\\"decision\\": \\"block\\"}'`, timeout_seconds: 5 }], workspace);
      expect((await hooks.preToolCall(call)).action).toBe('block');
    } finally {
      process.env.PATH = saved;
    }
    expect(existsSync(marker)).toBe(false);
  });

  it('never runs a hook whose program or script lies in the workspace; one outside it runs', async () => {
    const workspace = tempDir('hermes-hook-workspace-');
    const marker = path.join(dir, 'workspace-hook-ran');
    const inside = path.join(workspace, 'hooks', 'guard.sh');
    mkdirSync(path.dirname(inside));
    writeFileSync(inside, `#!/bin/sh\ntouch '${marker}'\n`);
    chmodSync(inside, 0o755);
    // Through a link from outside, too.
    const link = path.join(dir, 'guard-link.sh');
    symlinkSync(inside, link);
    for (const command of [inside, `sh ${inside}`, `bash --rcfile=${inside} -c true`, `sh ${link}`]) {
      const { logger, warnings } = captureLogger();
      const hooks = new HookRegistry(logger);
      registerShellHooks(hooks, [{ event: 'pre_tool_call', command, timeout_seconds: 5 }], workspace);
      expect((await hooks.preToolCall(call)).action).toBe('block');
      expect(warnings().join('\n')).toContain('lies in the session');
    }
    expect(existsSync(marker)).toBe(false);
    const outside = new HookRegistry();
    registerShellHooks(outside, [{ event: 'pre_tool_call', command: `sh ${script('outside.sh', 'cat > /dev/null')}`, timeout_seconds: 5 }], workspace);
    expect(await outside.preToolCall(call)).toEqual({ action: 'allow' });
  });

  it('splits commands without a shell and matches literally when the pattern is not a regex', () => {
    expect(splitCommand(`python3 '/a b/hook.py' --flag "x \\"y\\""`)).toEqual(['python3', '/a b/hook.py', '--flag', 'x "y"']);
    expect(toolMatcher('read_file|write_file')('write_file')).toBe(true);
    expect(toolMatcher('[unclosed')('[unclosed')).toBe(true);
  });
});
