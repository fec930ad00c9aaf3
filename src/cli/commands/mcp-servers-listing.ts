// `hermes-temporal tools --mcp`: connects to each configured MCP server as a worker would (stdio
// in the sandbox, ${ENV} filled here) and prints the tools sessions would get, or why not.
import type { LoadedConfig } from '../../config/load';
import type { Logger } from '../../logging';
import { createMcpPool } from '../../mcp/create-pool';
import { isToolIncluded, mcpToolName, requiresApproval } from '../../mcp/naming';
import { describeServer, resolveServer } from '../../mcp/resolved-server';
import { visibleStrings } from '../../approval-signals/visible-text';

export interface McpServerReport {
  server: string;
  enabled: boolean;
  transport: 'stdio' | 'streamable_http' | 'sse';
  where: string;
  tools?: { name: string; requiresApproval: boolean; description: string }[];
  error?: string;
}

export async function listMcpServers(config: LoadedConfig, logger: Logger): Promise<McpServerReport[]> {
  const pool = createMcpPool(config, logger);
  try {
    return await Promise.all(
      Object.entries(config.mcp_servers).map(async ([name, serverConfig]): Promise<McpServerReport> => {
        const server = resolveServer(name, serverConfig);
        const transport = serverConfig.url ? (serverConfig.transport ?? 'streamable_http') : 'stdio';
        const base = { server: name, enabled: serverConfig.enabled, transport, where: describeServer(server) } as const;
        if (!serverConfig.enabled) return base;
        try {
          const listed = await pool.withClient(server, (client) => client.listTools(undefined, { timeout: serverConfig.connect_timeout * 1000 }), {
            connectTimeoutMs: serverConfig.connect_timeout * 1000,
          });
          const tools = listed.tools
            .filter((tool) => isToolIncluded(tool.name, serverConfig.tools))
            .map((tool) => ({ name: mcpToolName(name, tool.name), requiresApproval: requiresApproval(tool.name, serverConfig.require_approval), description: (tool.description ?? '').split('\n')[0] ?? '' }));
          return { ...base, tools };
        } catch (error) {
          return { ...base, error: error instanceof Error ? error.message : String(error) };
        }
      }),
    );
  } finally {
    await pool.closeAll();
  }
}

export function printMcpServers(reports: McpServerReport[]): void {
  if (!reports.length) return console.log('No MCP servers configured (mcp_servers in <home>/config.yaml).');
  // Names, descriptions and errors come from the servers: shown, never interpreted by the terminal.
  for (const report of visibleStrings(reports)) {
    const state = !report.enabled ? 'disabled' : report.error ? `unavailable: ${report.error}` : `${report.tools?.length ?? 0} tools`;
    console.log(`${report.server} (${report.transport}, ${report.where}): ${state}`);
    for (const tool of report.tools ?? []) console.log(`  ${tool.name.padEnd(40)} ${tool.requiresApproval ? '[approval] ' : ''}${tool.description.slice(0, 80)}`);
  }
}
