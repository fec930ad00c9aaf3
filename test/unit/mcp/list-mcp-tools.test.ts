// Listing a session's MCP tools: filters, names, the collision rule (built-ins win), the approval
// flag, a server that cannot be listed; the listing kept in the store under its digest.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { MockActivityEnvironment } from '@temporalio/testing';
import { z } from 'zod';
import { createListMcpTools } from '../../../src/activities/mcp-list-tools';
import { loadConfig } from '../../../src/config/load';
import { createSecretRedactor } from '../../../src/environments/secret-redaction';
import { McpConnectionPool } from '../../../src/mcp/connection-pool';
import { McpListingStore } from '../../../src/mcp/listing-store';
import type { McpListingSummary } from '../../../src/mcp/listing-types';
import { ToolRegistry } from '../../../src/registry/registry';
import { SqliteSessionStore } from '../../../src/store/sqlite-session-store';

function transportFor(name: string) {
  if (name === 'down') throw new Error('connection refused');
  const server = new McpServer({ name, version: '1' });
  for (const tool of ['read-file', 'write_file', 'ping']) server.registerTool(tool, { description: tool === 'ping' ? '' : `${tool} tool`, inputSchema: { path: z.string() } }, async () => ({ content: [] }));
  const [client, serverSide] = InMemoryTransport.createLinkedPair();
  void server.connect(serverSide);
  return client;
}

test('lists filtered, prefixed tools; built-ins keep their names; an unreachable server is reported', async () => {
  const config = loadConfig({
    env: { HERMES_TEMPORAL_HOME: '/nonexistent-hermes-home' },
    projectDir: '/nonexistent-project',
    flags: {
      mcp_servers: {
        fs: { command: 'x', tools: { exclude: ['ping'] }, require_approval: ['write_file'], supports_parallel_tool_calls: true },
        other: { command: 'x', tools: { include: ['ping'] } },
        down: { command: 'x' },
        off: { command: 'x', enabled: false },
      },
    },
  });
  const registry = new ToolRegistry();
  registry.register({ name: 'mcp__other__ping', toolset: 'file', schema: z.object({}), description: 'a built-in', handler: () => 'built-in' });
  const pool = new McpConnectionPool((server) => transportFor(server.name));
  const store = new SqliteSessionStore(':memory:');
  const listings = new McpListingStore(store);
  const listMcpTools = createListMcpTools({ config, registry, logger: { warn: () => undefined } as never, redactor: createSecretRedactor({}), pool, listings });
  try {
    const summary = await new MockActivityEnvironment().run<[{ sessionId: string }], McpListingSummary, typeof listMcpTools>(listMcpTools, { sessionId: 's1' });
    expect(summary).toMatchObject({ servers: ['fs', 'other'], toolCount: 2 });
    expect(summary.failures).toEqual([expect.stringMatching(/^down: connection refused/)]);
    const listing = await new McpListingStore(store).load(summary.digest);
    expect(listing?.tools.map((tool) => [tool.name, tool.tool, tool.requiresApproval, tool.parallel])).toEqual([
      ['mcp__fs__read_file', 'read-file', false, true],
      ['mcp__fs__write_file', 'write_file', true, true],
    ]);
    expect(listing?.tools[0]).toMatchObject({ description: 'read-file tool', parameters: { type: 'object', properties: { path: { type: 'string' } } } });
  } finally {
    await pool.closeAll();
    await store.close();
  }
}, 20_000);
