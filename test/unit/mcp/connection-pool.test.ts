// The worker's MCP pool, against in-process servers: one connection per server and config,
// reused; idle and broken connections closed; failed reconnections back off.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpConnectionPool, McpTransportDownError } from '../../../src/mcp/connection-pool';
import { resolveServer } from '../../../src/mcp/resolved-server';
import { mcpServerSchema } from '../../../src/mcp/server-config';

let now = 0;
let servers: McpServer[] = [];
let refuse = false;
const opened: string[] = [];

function serverTransport(key: string) {
  opened.push(key);
  if (refuse) throw new Error('connection refused');
  const server = new McpServer({ name: 'test', version: '1' });
  server.registerTool('ping', { description: 'ping' }, async () => ({ content: [{ type: 'text', text: 'pong' }] }));
  const [client, serverSide] = InMemoryTransport.createLinkedPair();
  void server.connect(serverSide);
  servers.push(server);
  return client;
}

const config = (extra: Record<string, unknown> = {}) => mcpServerSchema.parse({ command: 'unused', idle_timeout_seconds: 10, ...extra });
const options = { connectTimeoutMs: 5000 };
let pool: McpConnectionPool;

beforeEach(() => {
  now = 0;
  refuse = false;
  servers = [];
  opened.length = 0;
  pool = new McpConnectionPool((server) => serverTransport(server.key), undefined, () => now);
});
afterEach(async () => {
  await pool.closeAll();
});

const ping = (server = resolveServer('a', config())) => pool.withClient(server, (client) => client.callTool({ name: 'ping', arguments: {} }), options);

test('calls to one server with one config share a connection; another config gets its own', async () => {
  await ping();
  await ping();
  expect(opened).toHaveLength(1);
  await ping(resolveServer('a', config({ timeout: 5 })));
  expect(opened).toHaveLength(2);
  expect(pool.size).toBe(2);
});

test('a connection unused for its idle timeout is closed; the next call opens a new one', async () => {
  await ping();
  now = 5_000;
  await pool.sweep();
  expect(pool.size).toBe(1);
  now = 20_000;
  await pool.sweep();
  expect(pool.size).toBe(0);
  await ping();
  expect(opened).toHaveLength(2);
});

test('a broken connection is evicted and the next call reconnects at once', async () => {
  const server = resolveServer('a', config());
  await ping(server);
  await servers[0]!.close(); // the server goes away
  await pool.markBroken(server);
  expect(pool.size).toBe(0);
  await expect(ping(server)).resolves.toMatchObject({ content: [{ text: 'pong' }] });
  expect(opened).toHaveLength(2);
});

test('a server that cannot be reached is tried three times, then calls are refused until the backoff passes', async () => {
  refuse = true;
  await expect(ping()).rejects.toThrow('connection refused');
  expect(opened).toHaveLength(3);
  await expect(ping()).rejects.toBeInstanceOf(McpTransportDownError);
  now = 1_000;
  refuse = false;
  await expect(ping()).resolves.toBeDefined();
});
