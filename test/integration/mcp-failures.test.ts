// MCP servers that fail, on the real Temporal server: one that dies mid-call, one that never
// answers, one whose tool list changes, a cancelled call, and a worker killed mid-call.
import type { ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { replyTooLarge } from '../../src/activities/mcp-call-tool';
import { mcpErrors } from '../../src/mcp/circuit-breaker';
import { reloadMcpToolsSignal } from '../../src/workflows/messages';
import { startScriptedModelServer } from '../../src/model/scripted-model-server';
import { startSession } from '../../src/temporal/sessions';
import { misbehavingStdio } from '../helpers/mcp-servers';
import { connectHarness, createTestWorker, historyText, sandboxVisibleTempDir, testConfig, toolResults, withScriptedSession, type Harness } from '../helpers/session-harness';
import { waitFor } from '../helpers/wait';
import { spawnWorkerProcess } from '../helpers/worker-process';

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(async () => {
  await harness.close();
});

const call = (tool: string, args: Record<string, unknown> = {}) => ({ tool_calls: [{ name: `mcp__odd__${tool}`, arguments: args }] });

test('a server killed mid-call: the model hears the transport is down, and the next call starts it again', async () => {
  const cwd = sandboxVisibleTempDir('mcp-die-');
  const script = { turns: [call('die'), call('hello', { name: 'again' }), { content: 'done' }] };
  await withScriptedSession(harness, { script, config: { session: { cwd }, mcp_servers: { odd: misbehavingStdio(cwd) } } }, async ({ handle, store }) => {
    expect(await handle.result()).toMatchObject({ status: 'completed', toolCalls: 2 });
    const results = await toolResults(store, handle);
    expect(results[0]).toEqual({ error: mcpErrors.transportDown('odd') });
    expect(results[1]).toEqual({ result: 'hello again' });
  });
}, 120_000);

test("a reply over the transport's 10 MB: the model hears it was too large, not that the transport is down, and the next call works", async () => {
  const cwd = sandboxVisibleTempDir('mcp-huge-');
  const script = { turns: [call('huge', { bytes: 11 * 1024 * 1024 }), call('hello', { name: 'again' }), { content: 'done' }] };
  await withScriptedSession(harness, { script, config: { session: { cwd }, mcp_servers: { odd: misbehavingStdio(cwd) } } }, async ({ handle, store }) => {
    expect(await handle.result()).toMatchObject({ status: 'completed', toolCalls: 2 });
    const results = await toolResults(store, handle);
    expect(results[0]).toEqual({ error: replyTooLarge('mcp__odd__huge', 'odd', 'the server sent a message over the 10 MB a reply may take') });
    expect(results[1]).toEqual({ result: 'hello again' });
  });
}, 120_000);

test('a server that never answers: each call ends at its timeout, and after three the circuit opens', async () => {
  const cwd = sandboxVisibleTempDir('mcp-hang-');
  const script = { turns: [call('hang'), call('hang'), call('hang'), call('hello', { name: 'x' }), { content: 'done' }] };
  await withScriptedSession(harness, { script, config: { session: { cwd }, mcp_servers: { odd: misbehavingStdio(cwd, { timeout: 1 }) } } }, async ({ handle, store }) => {
    expect(await handle.result()).toMatchObject({ status: 'completed', toolCalls: 4 });
    const results = await toolResults(store, handle);
    expect(results[0]?.error).toBe("Error executing mcp__odd__hang: MCP server 'odd' did not answer within 1 s");
    expect(results[1]?.error).toBe(results[0]?.error);
    expect(results[2]?.error).toBe(results[0]?.error);
    // The third failure opened the circuit: the next call is refused without reaching the server.
    expect(String(results[3]?.error)).toMatch(/^MCP server 'odd' is unreachable after 3 consecutive failures\. Auto-retry available in ~\d+s\. Do NOT retry this tool yet/);
  });
}, 120_000);

test('a server whose tool list changes: the session lists again and the model is offered the new tool', async () => {
  const cwd = sandboxVisibleTempDir('mcp-changes-');
  const script = { turns: [call('add_tool'), call('added'), { content: 'done' }] };
  await withScriptedSession(harness, { script, config: { session: { cwd }, mcp_servers: { odd: misbehavingStdio(cwd) } } }, async ({ handle, store, model }) => {
    expect(await handle.result()).toMatchObject({ status: 'completed', toolCalls: 2 });
    const offered = (turn: number) => model.requests[turn]?.tools?.map((tool) => tool.function.name) ?? [];
    expect(offered(0)).not.toContain('mcp__odd__added');
    expect(offered(1)).toContain('mcp__odd__added');
    expect((await toolResults(store, handle))[1]).toEqual({ result: 'added tool ran' });
    const listings = historyText(await handle.fetchHistory()).match(/"listMcpTools"/g) ?? [];
    expect(listings).toHaveLength(2);
  });
}, 120_000);

test('cancelling a session cancels its MCP call on the server', async () => {
  const cwd = sandboxVisibleTempDir('mcp-cancel-');
  const script = { turns: [call('slow', { seconds: 60, id: 'c1' }), { content: 'never' }] };
  await withScriptedSession(harness, { script, config: { session: { cwd }, mcp_servers: { odd: misbehavingStdio(cwd) } } }, async ({ handle }) => {
    await waitFor(() => existsSync(path.join(cwd, 'started-c1')), { timeoutMs: 60_000, what: 'the slow call to start' });
    await handle.cancel();
    await waitFor(() => existsSync(path.join(cwd, 'cancelled-c1')), { timeoutMs: 20_000, what: 'the server to hear of the cancellation' });
    await expect(handle.result()).rejects.toThrow();
  });
}, 120_000);

test('a worker killed during an MCP call: the call is reported as interrupted, not run again', async () => {
  const cwd = sandboxVisibleTempDir('mcp-restart-');
  const servers = { odd: misbehavingStdio(cwd) };
  const model = await startScriptedModelServer({ script: { turns: [call('slow', { seconds: 30, id: 'r1' }), { content: 'noted' }] } });
  const config = testConfig({ session: { cwd }, mcp_servers: servers, model: { base_url: model.url } });
  // The worker in the child process reads its MCP servers from the home config (JSON is YAML).
  writeFileSync(path.join(config.home, 'config.yaml'), JSON.stringify({ mcp_servers: servers }));
  let child: ChildProcess | undefined;
  try {
    const handle = await startSession(harness.client, { task: 'survive a crash', config, limits: { toolHeartbeatTimeoutSeconds: 2 } });
    child = spawnWorkerProcess({ address: harness.address, config, modelUrl: model.url });
    await waitFor(() => existsSync(path.join(cwd, 'started-r1')), { timeoutMs: 90_000, what: 'the MCP call to start on the child worker' });
    child.kill('SIGKILL');
    const { worker, store } = await createTestWorker(harness, config);
    try {
      expect(await worker.runUntil(handle.result())).toMatchObject({ status: 'completed', toolCalls: 1 });
      const [result] = await toolResults(store, handle);
      expect(result).toMatchObject({ status: 'interrupted' });
      expect(String(result?.error)).toMatch(/\(odd:slow\) stopped before it finished\. It may have partially run/);
    } finally {
      await store.close();
    }
  } finally {
    child?.kill('SIGKILL');
    await model.close();
  }
}, 180_000);

test('the reloadMcpTools signal lists the session tools again before the next model call', async () => {
  const cwd = sandboxVisibleTempDir('mcp-reload-');
  const script = { turns: [call('slow', { seconds: 3, id: 'reload' }), { content: 'done' }] };
  await withScriptedSession(harness, { script, config: { session: { cwd }, mcp_servers: { odd: misbehavingStdio(cwd) } } }, async ({ handle }) => {
    await waitFor(() => existsSync(path.join(cwd, 'started-reload')), { timeoutMs: 60_000, what: 'the slow call to start' });
    await handle.signal(reloadMcpToolsSignal);
    expect(await handle.result()).toMatchObject({ status: 'completed' });
    expect(historyText(await handle.fetchHistory()).match(/"listMcpTools"/g)).toHaveLength(2);
  });
}, 120_000);
