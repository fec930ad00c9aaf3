// A session's MCP tools in the workflow: listed once per run by an activity (the result recorded
// in history), kept as a small summary whose digest names the full listing in the store, carried
// across continue-as-new, and listed again when a server announces a new tool list or someone
// sends `reloadMcpTools`. Never a worker-side cache: what the model sees is what history says.
import { log, setHandler } from '@temporalio/workflow';
import type { ActivityOptions } from '@temporalio/workflow';
import type { McpCallTarget, McpListingSummary } from '../mcp/listing-types';
import { markdownCode } from '../approval-signals/ui-markdown';
import { reloadMcpToolsSignal } from './messages';
import type { SessionActivities } from './session-activities';
import type { SessionInput } from './session-types';

export class McpTools {
  private summary?: McpListingSummary;
  private needsListing = false;

  constructor(
    private readonly input: SessionInput,
    private readonly activities: Pick<SessionActivities, 'listMcpTools'>,
  ) {
    this.summary = input.resume?.mcpListing;
    setHandler(reloadMcpToolsSignal, () => {
      this.needsListing = true;
    });
  }

  /** Lists the session's tools (first run, or when stale); a session without servers never calls. */
  async list(): Promise<void> {
    this.needsListing = false;
    this.summary = await this.activities.listMcpTools({ sessionId: this.input.sessionId, toolsets: this.input.toolsets, disabledToolsets: this.input.disabledToolsets });
    if (this.summary.failures.length) log.warn('MCP servers could not be listed', { failures: this.summary.failures });
  }

  /** A server changed its tools or a reload was asked for: list again before the next model call. */
  get stale(): boolean {
    return this.needsListing;
  }

  /** A call's result said its server's tool list changed. */
  markStale(): void {
    this.needsListing = true;
  }

  /** What callModel needs: the digest only. */
  callModelInput(): { mcpListing?: string } {
    return this.summary?.toolCount ? { mcpListing: this.summary.digest } : {};
  }

  /** One line for the UI's details when servers could not be listed. */
  failuresLine(): string {
    return this.summary?.failures.length ? ` — MCP servers unavailable: ${this.summary.failures.map(markdownCode).join('; ')}` : '';
  }

  carryOver(): { mcpListing?: McpListingSummary } {
    return this.summary ? { mcpListing: this.summary } : {};
  }
}

/** A server allowed a longer call than the tool timeout gets the time it was given, plus connecting. */
export function mcpCallOptions<Options extends ActivityOptions>(options: Options, target: McpCallTarget, toolTimeoutSeconds: number): Options {
  const needed = (target.timeoutSeconds ?? 0) + 90;
  return needed > toolTimeoutSeconds ? { ...options, startToCloseTimeout: `${needed} seconds` } : options;
}
