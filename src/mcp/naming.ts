// How MCP tools are named and chosen, as in the original: `mcp__<server>__<tool>` with every
// character outside [A-Za-z0-9_] replaced by `_`, one toolset `mcp-<server>` per server (aliased
// by the bare server name), `tools.include` winning over `tools.exclude`. Pure.
import type { McpServerConfig } from './server-config';

export const MCP_TOOLSET_PREFIX = 'mcp-';

export function sanitizeName(value: string | undefined | null): string {
  return String(value ?? '').replace(/[^A-Za-z0-9_]/g, '_');
}

export function mcpToolName(server: string, tool: string): string {
  return `mcp__${sanitizeName(server)}__${sanitizeName(tool)}`;
}

export function mcpToolsetName(server: string): string {
  return `${MCP_TOOLSET_PREFIX}${server}`;
}

export function isMcpToolset(toolset: string): boolean {
  return toolset.startsWith(MCP_TOOLSET_PREFIX);
}

/** Whether the server's `tools:` filter keeps this tool (include wins over exclude). */
export function isToolIncluded(tool: string, filter: McpServerConfig['tools']): boolean {
  if (filter.include) return filter.include.includes(tool);
  return !filter.exclude.includes(tool);
}

/** Whether calls of this tool wait for a human (`require_approval: true | [tool, ...]`). */
export function requiresApproval(tool: string, requireApproval: McpServerConfig['require_approval']): boolean {
  return Array.isArray(requireApproval) ? requireApproval.includes(tool) : requireApproval;
}

/**
 * Which enabled servers a session lists. Servers come with every session unless its disabled
 * toolsets name them (`mcp-<s>` or `<s>`); enabled toolsets that name any server (or `all`)
 * restrict the session to the servers they name, so a session can ask for one server only.
 */
export function selectServers(
  servers: Record<string, Pick<McpServerConfig, 'enabled'>>,
  options: { toolsets?: readonly string[]; disabledToolsets?: readonly string[] } = {},
): string[] {
  const names = Object.keys(servers).filter((name) => servers[name]?.enabled);
  const named = (list: readonly string[] | undefined, server: string) => Boolean(list?.some((entry) => entry === server || entry === mcpToolsetName(server)));
  const enabled = options.toolsets ?? [];
  const restricts = !enabled.some((entry) => entry === 'all' || entry === '*') && names.some((server) => named(enabled, server));
  return names.filter((server) => !named(options.disabledToolsets, server) && (!restricts || named(enabled, server))).sort();
}
