// What a session knows of its MCP tools. The full listing (schemas) is kept in the session store
// under its digest; workflow state holds only the small summary, so tool schemas never travel
// through history on every model call (DESIGN.md rule 2). Pure: the workflow imports it.

/** One MCP tool as the model sees it, and where calls of it go. */
export interface McpToolRecord {
  /** `mcp__<server>__<tool>`: the name the model calls. */
  name: string;
  server: string;
  /** The tool's own name on its server. */
  tool: string;
  description: string;
  parameters: Record<string, unknown>;
  /** The server says its tools may run side by side (`supports_parallel_tool_calls`). */
  parallel: boolean;
  /** Calls wait for a human (`require_approval`). */
  requiresApproval: boolean;
  /** The server's per-call timeout (`timeout`), so the activity's own deadline can exceed it. */
  timeoutSeconds: number;
}

export interface McpListing {
  /** When it was taken (worker clock): a `tools/list_changed` after this makes it stale. */
  listedAtMs: number;
  tools: McpToolRecord[];
  /** Servers that could not be listed, and why (also logged, and shown in the UI). */
  failures: { server: string; error: string }[];
}

/** What the workflow keeps and carries across continue-as-new. */
export interface McpListingSummary {
  /** Content digest of the stored listing. */
  digest: string;
  servers: string[];
  toolCount: number;
  failures: string[];
}

/** Where a planned MCP call goes: passed to its activity (the definition the model saw, by reference). */
export interface McpCallTarget {
  server: string;
  tool: string;
  /** Digest of the listing the model saw when it made the call. */
  listing: string;
  /** The server's per-call timeout when listed. */
  timeoutSeconds?: number;
}
