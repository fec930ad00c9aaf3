// What the approval gate sees of an MCP call whose server or tool is marked `require_approval`:
// `server:tool` and its arguments; a `session` answer approves that tool for the session. Pure.
import type { AssessmentRequest } from '../registry/tool-entry';
import type { McpToolRecord } from './listing-types';

export function mcpApprovalRequest(record: Pick<McpToolRecord, 'server' | 'tool' | 'requiresApproval'>, args: Record<string, unknown>): AssessmentRequest {
  if (!record.requiresApproval) return {};
  return {
    approval: {
      description: `MCP tool ${record.server}:${record.tool} needs approval (mcp_servers.${record.server}.require_approval)`,
      key: `MCP:${record.server}:${record.tool}`,
      display: `${record.server}:${record.tool} ${JSON.stringify(args, null, 2)}`,
    },
  };
}
