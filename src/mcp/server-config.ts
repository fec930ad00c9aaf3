// The `mcp_servers:` config block (one entry per server), as in the original Hermes config.yaml,
// plus `require_approval` and `sandbox`, which the original lacks. Pure: the config schema imports it.
import { z } from 'zod';

const positiveSeconds = z.number().positive();

export const mcpServerSchema = z
  .object({
    /** stdio transport: the program to start (used when there is no `url`). */
    command: z.string().min(1).optional(),
    args: z.array(z.string()).default([]),
    /** Merged over a filtered base environment (PATH, HOME, USER, LANG, …). */
    env: z.record(z.string(), z.string()).default({}),
    /** Where a stdio server starts; inside the sandbox, the one folder it may write. Defaults to the worker's cwd. */
    cwd: z.string().optional(),
    /** HTTP transports: Streamable HTTP unless `transport: sse`. Wins over `command`. */
    url: z.string().min(1).optional(), // a URL once its ${ENV} placeholders are filled
    transport: z.enum(['streamable_http', 'sse']).optional(),
    headers: z.record(z.string(), z.string()).default({}),
    /** false: skipped (sessions already running keep the tools they listed). */
    enabled: z.boolean().default(true),
    /** Per tool call, seconds. */
    timeout: positiveSeconds.default(300),
    /** Connecting and listing tools, seconds. */
    connect_timeout: positiveSeconds.default(60),
    /** true: this server's tools may run side by side in one turn. */
    supports_parallel_tool_calls: z.boolean().default(false),
    tools: z
      .object({
        /** Only these tools (wins over `exclude`). */
        include: z.array(z.string()).optional(),
        exclude: z.array(z.string()).default([]),
      })
      .strict()
      .prefault({}),
    /** true: every call of this server waits for a human; a list: calls of those tools do. */
    require_approval: z.union([z.boolean(), z.array(z.string())]).default(false),
    /** stdio only: run the server in the local bubblewrap sandbox, like local commands (default on). */
    sandbox: z.boolean().default(true),
    /** A live connection unused this long is closed by the worker. */
    idle_timeout_seconds: positiveSeconds.default(300),
  })
  .strict()
  .refine((server) => server.command !== undefined || server.url !== undefined, { message: 'an MCP server needs a `command` (stdio) or a `url` (HTTP)' });

export type McpServerConfig = z.infer<typeof mcpServerSchema>;

export const mcpServersSchema = z.record(z.string().min(1), mcpServerSchema).default({});
