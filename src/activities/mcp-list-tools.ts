// Lists a session's MCP tools: connects (through the worker's pool) to each server the session
// gets, applies the server's filters and the collision rule (built-in tools win), keeps the
// listing in the store and returns only its digest and counts, which the workflow records once
// per run. A server that cannot be listed is reported, not fatal: the session goes on without it.
import type { LoadedConfig } from '../config/load';
import type { Logger } from '../logging';
import type { McpConnectionPool } from '../mcp/connection-pool';
import type { SessionWorkspaces } from '../environments/session-workspaces';
import { normalizeInputSchema } from '../mcp/input-schema';
import type { McpListing, McpListingSummary, McpToolRecord } from '../mcp/listing-types';
import type { McpListingStore } from '../mcp/listing-store';
import { isMcpToolset, isToolIncluded, mcpToolName, requiresApproval, selectServers } from '../mcp/naming';
import { resolveServer } from '../mcp/resolved-server';
import type { ToolRegistry } from '../registry/registry';
import type { SecretRedactor } from '../environments/secret-redaction';
import { startHeartbeat } from './heartbeat';

export interface ListMcpToolsInput {
  sessionId: string;
  toolsets?: string[];
  disabledToolsets?: string[];
}

export interface McpActivityDeps {
  config: LoadedConfig;
  registry: ToolRegistry;
  logger: Logger;
  redactor: SecretRedactor;
  pool: McpConnectionPool;
  listings: McpListingStore;
  /** The workspaces of the sessions this worker serves: an unsandboxed server may not start from one. */
  workspaces?: SessionWorkspaces;
}

const MAX_PAGES = 50;

/** How many configured servers a session would list (prepareSession tells the workflow). */
export function mcpServerCount(config: LoadedConfig, toolsets?: string[], disabledToolsets?: string[]): number {
  return selectServers(config.mcp_servers, { toolsets, disabledToolsets }).length;
}

export function createListMcpTools(deps: McpActivityDeps) {
  return async function listMcpTools(input: ListMcpToolsInput): Promise<McpListingSummary> {
    const servers = selectServers(deps.config.mcp_servers, input);
    await deps.workspaces?.including(input.sessionId);
    const listedAtMs = Date.now();
    const heartbeat = startHeartbeat();
    try {
      const results = await Promise.all(servers.map((name) => listServer(name).then((tools) => ({ name, tools }), (error: unknown) => ({ name, error }))));
      const listing: McpListing = { listedAtMs, tools: [], failures: [] };
      const taken = new Set<string>();
      for (const result of results) {
        if ('error' in result) {
          const error = deps.redactor.redact(result.error instanceof Error ? result.error.message : String(result.error));
          deps.logger.warn({ server: result.name, error, sessionId: input.sessionId }, 'MCP server could not be listed; the session goes on without its tools');
          listing.failures.push({ server: result.name, error });
          continue;
        }
        for (const tool of result.tools) {
          // MCP-to-MCP: the later server wins, as in the original (servers are listed by name).
          if (taken.has(tool.name)) listing.tools = listing.tools.filter((other) => other.name !== tool.name);
          taken.add(tool.name);
          listing.tools.push(tool);
        }
      }
      const digest = await deps.listings.save(listing);
      return {
        digest,
        servers: results.filter((result) => !('error' in result)).map((result) => result.name),
        toolCount: listing.tools.length,
        failures: listing.failures.map((failure) => `${failure.server}: ${failure.error}`.slice(0, 300)),
      };
    } finally {
      heartbeat.stop();
    }
  };

  async function listServer(name: string): Promise<McpToolRecord[]> {
    const config = deps.config.mcp_servers[name];
    if (!config) return [];
    const server = resolveServer(name, config);
    const timeout = config.connect_timeout * 1000;
    const listed = await deps.pool.withClient(
      server,
      async (client) => {
        const tools: { name: string; description?: string; inputSchema?: unknown }[] = [];
        let cursor: string | undefined;
        for (let page = 0; page < MAX_PAGES; page += 1) {
          const result = await client.listTools(cursor ? { cursor } : undefined, { timeout });
          tools.push(...result.tools);
          cursor = result.nextCursor;
          if (!cursor) break;
        }
        return tools;
      },
      { connectTimeoutMs: timeout },
    );
    const records: McpToolRecord[] = [];
    for (const tool of listed) {
      if (!isToolIncluded(tool.name, config.tools)) continue;
      const prefixed = mcpToolName(name, tool.name);
      const builtin = deps.registry.get(prefixed);
      if (builtin && !isMcpToolset(builtin.toolset)) {
        deps.logger.warn({ server: name, tool: prefixed, toolset: builtin.toolset }, `MCP tool '${prefixed}' skipped: the name belongs to toolset '${builtin.toolset}'`);
        continue;
      }
      records.push({
        name: prefixed,
        server: name,
        tool: tool.name,
        description: tool.description || `MCP tool ${tool.name} from ${name}`,
        parameters: normalizeInputSchema(tool.inputSchema),
        parallel: config.supports_parallel_tool_calls,
        requiresApproval: requiresApproval(tool.name, config.require_approval),
        timeoutSeconds: config.timeout,
      });
    }
    return records;
  }
}
