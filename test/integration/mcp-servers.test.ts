// Sessions with real MCP servers from npm, started by the tests: server-everything over stdio
// (inside the local sandbox) and over Streamable HTTP on 127.0.0.1, and server-filesystem.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pendingApprovalsQuery } from '../../src/approval-signals/definitions';
import { decideSigned } from '../helpers/approver';
import { writeFolderPlugin } from '../helpers/plugin-fixtures';
import { everythingStdio, filesystemStdio, startEverythingHttp, type HttpServer } from '../helpers/mcp-servers';
import { connectHarness, historyText, tempDir, toolResults, withScriptedSession, type Harness } from '../helpers/session-harness';
import { waitFor } from '../helpers/wait';

let harness: Harness;
let http: HttpServer;
beforeAll(async () => {
  harness = await connectHarness();
  http = await startEverythingHttp();
});
afterAll(async () => {
  http?.close();
  await harness.close();
});

test('a session lists and calls tools of server-everything (stdio, Streamable HTTP, legacy SSE) and server-filesystem; secrets stay on the worker', async () => {
  const cwd = tempDir('hermes-mcp-cwd-');
  const note = path.join(cwd, 'note.txt');
  const script = {
    turns: [
      {
        tool_calls: [
          { name: 'mcp__everything__echo', arguments: { message: 'hello over stdio' } },
          { name: 'mcp__everything_http__get_sum', arguments: { a: 2, b: 40 } },
          { name: 'mcp__files__list_allowed_directories', arguments: {} },
          { name: 'mcp__everything_sse__echo', arguments: { message: 'hello over sse' } },
        ],
      },
      { tool_calls: [{ name: 'mcp__files__write_file', arguments: { path: note, content: 'written by an MCP server' } }] },
      { tool_calls: [{ name: 'mcp__files__read_text_file', arguments: { path: path.join(cwd, 'missing.txt') } }] },
      { content: 'done' },
    ],
  };
  const config = {
    session: { cwd },
    mcp_servers: {
      everything: everythingStdio(cwd),
      // The token is resolved on the worker from its environment: history only ever names the server.
      everything_http: { url: http.url, headers: { Authorization: 'Bearer ${HERMES_TEST_MCP_TOKEN}' } },
      everything_sse: { url: http.sseUrl, transport: 'sse' as const },
      files: filesystemStdio(cwd),
    },
  };
  process.env.HERMES_TEST_MCP_TOKEN = 'mcp-token-7f3a9c1e5b';
  await withScriptedSession(harness, { script, config }, async ({ handle, store, model }) => {
    expect(await handle.result()).toMatchObject({ status: 'completed', toolCalls: 6 });
    const offered = model.requests[0]?.tools?.map((tool) => tool.function.name) ?? [];
    expect(offered).toEqual(expect.arrayContaining(['mcp__everything__echo', 'mcp__everything_http__get_sum', 'mcp__files__write_file', 'terminal']));
    const results = await toolResults(store, handle);
    expect(results[0]).toEqual({ result: 'Echo: hello over stdio' });
    expect(String(results[1]?.result)).toContain('42');
    expect(String(results[2]?.result)).toContain(cwd);
    expect(results[3]).toEqual({ result: 'Echo: hello over sse' });
    expect(readFileSync(note, 'utf8')).toBe('written by an MCP server');
    // The server's own error comes back as the model's JSON error.
    expect(String(results[5]?.error)).toMatch(/ENOENT|no such file|not found/i);

    // History names each call server:tool and never carries tool schemas.
    const history = historyText(await handle.fetchHistory());
    expect(history).toContain('everything:echo');
    expect(history).toContain('files:write_file');
    expect(history).not.toContain('Echoes back the input');
    expect(history).not.toContain('mcp-token-7f3a9c1e5b');
  });
}, 180_000);

test("the tool hooks run around MCP calls too: pre_tool_call blocks one, post_tool_call sees each, transform_tool_result rewrites", async () => {
  const cwd = tempDir('hermes-mcp-cwd-');
  const home = tempDir('hermes-mcp-home-');
  const events = path.join(home, 'events.log');
  writeFolderPlugin(
    path.join(home, 'plugins'),
    'mcp-guard',
    [
      `const fs = require('node:fs');`,
      `context.registerHook('pre_tool_call', (call) => String(call.args.message).includes('forbidden') ? { action: 'block', message: 'mcp-guard blocks forbidden echoes.' } : undefined);`,
      `context.registerHook('post_tool_call', (call) => fs.appendFileSync(${JSON.stringify(events)}, call.tool_name + ' ' + call.status + '\\n'));`,
      `context.registerHook('transform_tool_result', (call) => call.tool_name.startsWith('mcp__') && call.status === 'ok' ? '[checked] ' + call.result : undefined);`,
    ].join('\n'),
  );
  const script = {
    turns: [
      { tool_calls: [{ name: 'mcp__everything__echo', arguments: { message: 'fine' } }, { name: 'mcp__everything__echo', arguments: { message: 'forbidden words' } }] },
      { content: 'done' },
    ],
  };
  const config = { session: { cwd }, plugins: { enabled: ['mcp-guard'] }, mcp_servers: { everything: everythingStdio(cwd) } };
  await withScriptedSession(harness, { script, home, config }, async ({ handle, store }) => {
    expect(await handle.result()).toMatchObject({ status: 'completed', toolCalls: 2 });
    const messages = (await store.getMessages((await handle.describe()).workflowId.replace('hermes-session-', ''))).filter((message) => message.role === 'tool');
    expect(messages[0]?.content).toBe('[checked] {"result":"Echo: fine"}');
    expect(JSON.parse(messages[1]?.content ?? '{}')).toEqual({ error: 'mcp-guard blocks forbidden echoes.' });
    expect(readFileSync(events, 'utf8').trim().split('\n').sort()).toEqual(['mcp__everything__echo blocked', 'mcp__everything__echo ok']);
  });
}, 120_000);

test('an MCP tool marked require_approval waits for a human, who sees server:tool and its arguments', async () => {
  const cwd = tempDir('hermes-mcp-cwd-');
  const note = path.join(cwd, 'approved.txt');
  const script = {
    turns: [
      { tool_calls: [{ name: 'mcp__files__write_file', arguments: { path: note, content: 'after approval' } }] },
      { content: 'done' },
    ],
  };
  const config = { session: { cwd }, mcp_servers: { files: filesystemStdio(cwd, { require_approval: ['write_file'] }) } };
  await withScriptedSession(harness, { script, config }, async ({ handle, config: loaded }) => {
    const [pending] = (await waitFor(async () => {
      const list = await handle.query(pendingApprovalsQuery);
      return list.length ? list : undefined;
    }, { timeoutMs: 60_000, what: 'the MCP call to wait for approval' }))!;
    expect(pending?.command).toContain('files:write_file');
    expect(pending?.command).toContain('after approval');
    expect(pending?.description).toContain('require_approval');
    await decideSigned(handle, loaded, { approvalId: pending!.approvalId, choice: 'once' });
    expect(await handle.result()).toMatchObject({ status: 'completed', toolCalls: 1 });
    expect(readFileSync(note, 'utf8')).toBe('after approval');
  });
}, 180_000);

test('an MCP result over the size budget is saved to a file and the model gets a preview', async () => {
  const cwd = tempDir('hermes-mcp-cwd-');
  writeFileSync(path.join(cwd, 'big.txt'), 'x'.repeat(150_000));
  const script = { turns: [{ tool_calls: [{ name: 'mcp__files__read_text_file', arguments: { path: path.join(cwd, 'big.txt') } }] }, { content: 'done' }] };
  await withScriptedSession(harness, { script, config: { session: { cwd }, mcp_servers: { files: filesystemStdio(cwd) } } }, async ({ handle, store }) => {
    expect(await handle.result()).toMatchObject({ status: 'completed' });
    const messages = await store.getMessages((await handle.describe()).workflowId.replace('hermes-session-', ''));
    const result = messages.find((message) => message.role === 'tool')?.content ?? '';
    expect(result).toContain('<persisted-output>');
    expect(result.length).toBeLessThan(5000);
  });
}, 120_000);

test('the listing is carried across continue-as-new: later runs call MCP tools without listing again', async () => {
  const cwd = tempDir('hermes-mcp-cwd-');
  const echo = (message: string) => ({ tool_calls: [{ name: 'mcp__everything__echo', arguments: { message } }] });
  const script = { turns: [echo('first run'), echo('second run'), { content: 'done' }] };
  await withScriptedSession(harness, { script, limits: { turnsPerRun: 1 }, config: { session: { cwd }, mcp_servers: { everything: everythingStdio(cwd) } } }, async ({ handle, store }) => {
    expect(await handle.result()).toMatchObject({ status: 'completed', toolCalls: 2 });
    expect(await toolResults(store, handle)).toEqual([{ result: 'Echo: first run' }, { result: 'Echo: second run' }]);
    const latestRun = historyText(await handle.fetchHistory());
    expect(latestRun).toContain('"callModel"');
    expect(latestRun).not.toContain('"listMcpTools"');
  });
}, 120_000);
