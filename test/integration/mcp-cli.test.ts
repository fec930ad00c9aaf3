// `hermes-temporal run` with a home config naming the two npm MCP servers: the session lists
// their tools and calls them on the real Temporal server, as a user would see it.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CliTestbed, jsonLines, requireBuild } from '../helpers/cli';
import { everythingStdio, filesystemStdio } from '../helpers/mcp-servers';

requireBuild();

const testbed = new CliTestbed();
afterEach(() => testbed.cleanup());

test('run lists and calls tools of server-everything and server-filesystem', async () => {
  const sandbox = await testbed.sandbox({
    script: {
      turns: [
        { tool_calls: [{ name: 'mcp__everything__echo', arguments: { message: 'from the CLI' } }] },
        // Relative to the filesystem server's cwd, the session's folder (the one it may write).
        { tool_calls: [{ name: 'mcp__filesystem__write_file', arguments: { path: 'mcp-note.txt', content: 'mcp wrote this' } }] },
        { content: 'Both MCP servers answered.' },
      ],
    },
  });
  writeFileSync(
    path.join(sandbox.home, 'config.yaml'),
    JSON.stringify({ mcp_servers: { everything: everythingStdio(sandbox.cwd), filesystem: filesystemStdio(sandbox.cwd) } }),
  );
  const result = await testbed.runCli(sandbox, ['run', '--json', 'use the MCP servers'], 90_000);
  expect(result.code).toBe(0);
  const events = jsonLines(result.stdout);
  expect(events.filter((event) => event.type === 'tool_finished').map((event) => [event.name, event.summary, event.ok])).toEqual([
    ['mcp__everything__echo', 'everything:echo', true],
    ['mcp__filesystem__write_file', 'filesystem:write_file', true],
  ]);
  expect(events.at(-1)).toMatchObject({ type: 'final', answer: 'Both MCP servers answered.' });
  expect(readFileSync(path.join(sandbox.cwd, 'mcp-note.txt'), 'utf8')).toBe('mcp wrote this');
  const offered = sandbox.model.requests[0]?.tools?.map((tool) => tool.function.name) ?? [];
  expect(offered).toEqual(expect.arrayContaining(['mcp__everything__echo', 'mcp__filesystem__write_file', 'mcp__filesystem__read_text_file']));
}, 120_000);

test('tools --mcp connects to each server and lists its tools, or says why it cannot', async () => {
  const sandbox = await testbed.sandbox();
  writeFileSync(
    path.join(sandbox.home, 'config.yaml'),
    JSON.stringify({ mcp_servers: { everything: everythingStdio(sandbox.cwd, { require_approval: ['echo'] }), broken: { command: '/nonexistent/mcp-server', connect_timeout: 5 }, off: { command: 'x', enabled: false } } }),
  );
  const result = await testbed.runCli(sandbox, ['tools', '--mcp', '--json'], 60_000);
  expect(result.code).toBe(0);
  const reports = JSON.parse(result.stdout) as { server: string; enabled: boolean; tools?: { name: string; requiresApproval: boolean }[]; error?: string }[];
  const byName = new Map(reports.map((report) => [report.server, report]));
  expect(byName.get('everything')?.tools).toEqual(expect.arrayContaining([{ name: 'mcp__everything__echo', requiresApproval: true, description: expect.any(String) as string }]));
  expect(byName.get('broken')?.error).toBeDefined();
  expect(byName.get('off')).toMatchObject({ enabled: false });
}, 90_000);
