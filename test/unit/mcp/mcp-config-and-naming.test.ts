// MCP servers as a user configures them: the original's keys and defaults, `${ENV}` placeholders
// filled on the worker, tool names the model sees, which tools and servers a session gets.
import { configSchema } from '../../../src/config/schema';
import { isToolIncluded, mcpToolName, mcpToolsetName, requiresApproval, sanitizeName, selectServers } from '../../../src/mcp/naming';
import { resolveServer, stdioEnvironment } from '../../../src/mcp/resolved-server';
import { mcpServerSchema } from '../../../src/mcp/server-config';

describe('mcp_servers config', () => {
  it('takes a stdio server and an HTTP server with the original defaults', () => {
    const config = configSchema.parse({
      mcp_servers: {
        files: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'] },
        remote: { url: 'http://127.0.0.1:3001/mcp', headers: { Authorization: 'Bearer ${TOKEN}' }, supports_parallel_tool_calls: true },
      },
    });
    expect(config.mcp_servers.files).toMatchObject({ enabled: true, timeout: 300, connect_timeout: 60, supports_parallel_tool_calls: false, require_approval: false, sandbox: true, env: {}, tools: { exclude: [] } });
    expect(config.mcp_servers.remote?.supports_parallel_tool_calls).toBe(true);
  });

  it('refuses a server with neither command nor url, and unknown keys', () => {
    expect(mcpServerSchema.safeParse({ args: [] }).success).toBe(false);
    expect(mcpServerSchema.safeParse({ command: 'x', colour: 'red' }).success).toBe(false);
  });

  it('accepts require_approval as a flag or a list of tools', () => {
    expect(mcpServerSchema.parse({ command: 'x', require_approval: true }).require_approval).toBe(true);
    expect(mcpServerSchema.parse({ command: 'x', require_approval: ['write_file'] }).require_approval).toEqual(['write_file']);
  });

  it('fills ${ENV} placeholders on the worker, in every string, and keys the pool by the resolved config', () => {
    const config = mcpServerSchema.parse({ url: 'http://127.0.0.1:${PORT}/mcp', headers: { Authorization: 'Bearer ${TOKEN}' } });
    const first = resolveServer('remote', config, { PORT: '3001', TOKEN: 'secret-1' });
    const second = resolveServer('remote', config, { PORT: '3001', TOKEN: 'secret-2' });
    expect(first.config.url).toBe('http://127.0.0.1:3001/mcp');
    expect(first.config.headers.Authorization).toBe('Bearer secret-1');
    expect(first.key).toMatch(/^remote#[0-9a-f]{16}$/);
    expect(first.key).not.toBe(second.key);
    expect(first.key).not.toContain('secret');
    expect(resolveServer('remote', config, {}).config.headers.Authorization).toBe('Bearer ');
  });

  it('gives stdio servers only the base environment plus their own env', () => {
    const env = stdioEnvironment({ API_KEY: 'k' }, { PATH: '/bin', HOME: '/home/u', OPENAI_API_KEY: 'sk-x', XDG_CONFIG_HOME: '/c' });
    expect(env).toEqual({ PATH: '/bin', HOME: '/home/u', XDG_CONFIG_HOME: '/c', API_KEY: 'k' });
  });
});

describe('MCP tool names and toolsets', () => {
  it('names tools mcp__<server>__<tool> with anything outside [A-Za-z0-9_] replaced', () => {
    expect(mcpToolName('my-server', 'read.file')).toBe('mcp__my_server__read_file');
    expect(sanitizeName(undefined)).toBe('');
    expect(mcpToolsetName('my-server')).toBe('mcp-my-server');
  });

  it('filters tools: include wins over exclude', () => {
    expect(isToolIncluded('echo', { exclude: ['echo'] })).toBe(false);
    expect(isToolIncluded('add', { exclude: ['echo'] })).toBe(true);
    expect(isToolIncluded('echo', { include: ['echo'], exclude: ['echo'] })).toBe(true);
    expect(isToolIncluded('add', { include: ['echo'], exclude: [] })).toBe(false);
  });

  it('marks calls for approval per server or per tool', () => {
    expect(requiresApproval('write_file', true)).toBe(true);
    expect(requiresApproval('write_file', ['write_file'])).toBe(true);
    expect(requiresApproval('read_file', ['write_file'])).toBe(false);
    expect(requiresApproval('read_file', false)).toBe(false);
  });

  it('gives a session every enabled server unless its toolsets say otherwise', () => {
    const servers = { a: { enabled: true }, b: { enabled: true }, off: { enabled: false } };
    expect(selectServers(servers, { toolsets: ['hermes-cli'] })).toEqual(['a', 'b']);
    expect(selectServers(servers, { toolsets: ['hermes-cli', 'a'] })).toEqual(['a']);
    expect(selectServers(servers, { toolsets: ['mcp-b'] })).toEqual(['b']);
    expect(selectServers(servers, { toolsets: ['all', 'a'] })).toEqual(['a', 'b']);
    expect(selectServers(servers, { disabledToolsets: ['mcp-a'] })).toEqual(['b']);
    expect(selectServers(servers, { toolsets: ['off'] })).toEqual(['a', 'b']);
  });
});
