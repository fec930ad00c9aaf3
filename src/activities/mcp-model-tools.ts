// The MCP side of a model call: definitions from the session's listing, and how a call of an
// MCP tool is planned (summary `server:tool`, parallel only where the server allows it).
import type { SecretRedactor } from '../environments/secret-redaction';
import type { McpToolRecord } from '../mcp/listing-types';
import type { ToolDefinition } from '../registry/tool-entry';
import type { StoredToolCall } from '../store/session-store';
import type { ToolCallPlan } from '../workflows/session-types';

export function mcpDefinitions(tools: readonly McpToolRecord[], builtinNames: readonly string[]): ToolDefinition[] {
  return tools
    .filter((tool) => !builtinNames.includes(tool.name))
    .map((tool) => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } }));
}

export function planMcpCall(call: StoredToolCall, tool: McpToolRecord, listing: string, redactor: SecretRedactor): ToolCallPlan {
  return {
    id: call.id,
    name: call.name,
    // The activity summary an operator reads in the UI; secrets hidden like every summary.
    summary: redactor.redact(`${tool.server}:${tool.tool}`),
    concurrency: tool.parallel ? { mode: 'parallel' } : { mode: 'exclusive' },
    ...(tool.requiresApproval ? { needsAssessment: true } : {}),
    mcp: { server: tool.server, tool: tool.tool, listing, ...(tool.timeoutSeconds ? { timeoutSeconds: tool.timeoutSeconds } : {}) },
  };
}
