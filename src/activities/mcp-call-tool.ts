// One MCP tool call as an activity (summary `server:tool`): arguments read from the store, the
// tool the model saw taken from the listing it saw, the call made through the worker's pool with
// the server's timeout, heartbeating, and cancelled on the server (notifications/cancelled) when
// the activity is. Every problem comes back as the original's JSON error for the model. The tool
// hooks run around it as around a built-in tool: pre_tool_call may block it.
import { activityInfo, cancellationSignal } from '@temporalio/activity';
import { CancelledFailure } from '@temporalio/common';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { ApprovalGateResult } from '../approval-signals/approval-types';
import type { HookRegistry } from '../hooks/hook-registry';
import { afterCall, checkBeforeCall, preToolCallPayload } from '../hooks/tool-call-hooks';
import { mcpErrors } from '../mcp/circuit-breaker';
import { McpReplyTooLargeError, McpTransportDownError } from '../mcp/connection-pool';
import type { McpCallTarget } from '../mcp/listing-types';
import { resolveServer } from '../mcp/resolved-server';
import { mapCallResult, type McpCallResult } from '../mcp/result-mapping';
import { checkServerFolder } from '../mcp/transports';
import { describeRemovals, type FolderRemovals } from '../environments/folder-watch';
import { INVALID_ARGUMENTS_RESULT, parseToolArguments } from '../registry/handle-function-call';
import { toolError } from '../registry/results';
import type { SessionStore } from '../store/session-store';
import type { EnvironmentFactory } from '../environments/factory';
import type { EnvironmentHandle } from '../environments/terminal-environment';
import { applyResultBudget } from '../registry/result-budget';
import { DEFAULT_MAX_RESULT_CHARS } from '../registry/tool-entry';
import type { ToolOutcome } from '../workflows/session-types';
import { outcomeOf } from './execute-tool';
import { startHeartbeat } from './heartbeat';
import type { McpActivityDeps } from './mcp-list-tools';

export interface CallMcpToolInput {
  sessionId: string;
  seq: number;
  assistantSeq: number;
  toolCallId: string;
  name: string;
  target: McpCallTarget;
  gate?: ApprovalGateResult;
  /** The session's environment: a result over the size budget is saved there, as for built-in tools. */
  environment: EnvironmentHandle;
}

export interface McpToolOutcome extends ToolOutcome {
  /** The server announced a new tool list since the session listed it: the workflow lists again. */
  toolsChanged?: boolean;
}

export function createCallMcpTool(deps: McpActivityDeps & { store: SessionStore; environments: EnvironmentFactory; hooks: HookRegistry }) {
  return async function callMcpTool(input: CallMcpToolInput): Promise<McpToolOutcome> {
    const existing = await deps.store.getMessage(input.sessionId, input.seq);
    if (existing) return outcomeOf(existing);
    const store = async (content: string, extra: { toolsChanged?: boolean } = {}): Promise<McpToolOutcome> => {
      const message = await deps.store.appendMessage(input.sessionId, {
        seq: input.seq,
        role: 'tool',
        content: deps.redactor.redactResult(content),
        toolCallId: input.toolCallId,
        name: input.name,
        ...(input.gate?.approved && input.gate.sensitive ? { sensitive: true as const } : {}),
      });
      return { ...outcomeOf(message), ...(extra.toolsChanged ? { toolsChanged: true } : {}) };
    };
    const { server: serverName, tool } = input.target;
    // The worker that ran this call died after it reached the server: its effect is unknown.
    if ((activityInfo().heartbeatDetails as { phase?: string } | undefined)?.phase === 'started') {
      return store(toolError(`Interrupted: the worker running this MCP call (${serverName}:${tool}) stopped before it finished. It may have partially run; check its effects before calling it again.`, { status: 'interrupted' }));
    }
    if (input.gate && !input.gate.approved) return store(JSON.stringify({ error: input.gate.message, status: 'blocked' }));

    const listing = await deps.listings.load(input.target.listing);
    const record = listing?.tools.find((candidate) => candidate.name === input.name);
    if (!record) return store(toolError(`Unknown tool: ${input.name}`));
    const assistant = await deps.store.getMessage(input.sessionId, input.assistantSeq);
    const args = parseToolArguments(assistant?.toolCalls?.find((call) => call.id === input.toolCallId)?.arguments);
    if (!args) return store(INVALID_ARGUMENTS_RESULT);
    const config = deps.config.mcp_servers[serverName];
    if (!config?.enabled) return store(toolError(mcpErrors.notConnected(serverName)));

    const server = resolveServer(serverName, config);
    // The server may start now: not from this session's workspace either, when it runs unsandboxed.
    await deps.workspaces?.including(input.sessionId);
    const breaker = deps.pool.breaker(server);
    const refusal = breaker.refusal();
    if (refusal) return store(toolError(mcpErrors.circuitOpen(serverName, refusal.failures, refusal.retryInSeconds)));

    const hookPayload = preToolCallPayload({ sessionId: input.sessionId, toolCallId: input.toolCallId, name: input.name }, args);
    // Unless the approval gate's assessment already asked them (tools in require_approval).
    if (!(input.gate?.approved && input.gate.hooksChecked)) {
      const decision = await checkBeforeCall(deps.hooks, hookPayload);
      if (decision.action === 'block') return { ...(await store(toolError(decision.message))), blockedBy: decision.source };
    }

    const signal = cancellationSignal();
    const heartbeat = startHeartbeat({ phase: 'started' }, { immediate: true });
    const startedMs = Date.now();
    let removed: FolderRemovals | undefined;
    const observed = (content: string) => afterCall(deps.hooks, hookPayload, content, Date.now() - startedMs);
    try {
      let result: McpCallResult;
      try {
        result = (await deps.pool.withClient(
          server,
          (client) =>
            client
              .callTool({ name: record.tool, arguments: args }, undefined, {
                signal,
                timeout: config.timeout * 1000,
                resetTimeoutOnProgress: true,
                onprogress: (progress) => heartbeat.update({ progress: progress.progress, total: progress.total }),
              })
              // Whatever the call did in a sandboxed server's folder, even if it failed, is checked now.
              .finally(() => (removed = checkServerFolder(client.transport))),
          { connectTimeoutMs: config.connect_timeout * 1000, signal },
        )) as McpCallResult;
        breaker.succeeded();
      } catch (error) {
        logRemovals(removed);
        if (signal.aborted) throw signal.reason instanceof CancelledFailure ? signal.reason : new CancelledFailure('The MCP call was cancelled');
        return await store(await observed(await describeFailure(error)));
      }
      // Only the call's own failures are the server's: a store that cannot be written fails the activity.
      const mapped = deps.redactor.redactResult(await observed(withRemovals(mapCallResult(result), removed)));
      // The call has run: an environment that cannot be reached now must not make it look interrupted.
      const workspace = await deps.environments.attach(input.environment).then((environment) => environment.workspace, () => undefined);
      const budgeted = workspace ? await applyResultBudget(mapped, DEFAULT_MAX_RESULT_CHARS, { workspace, sessionId: input.sessionId, toolCallId: input.toolCallId }) : mapped;
      return await store(budgeted, { toolsChanged: deps.pool.toolsChangedSince(server, listing?.listedAtMs ?? 0) });
    } finally {
      heartbeat.stop();
    }

    /** The model hears what was removed, as after a command; the operator's log says it too. */
    function withRemovals(content: string, removals: FolderRemovals | undefined): string {
      const note = removals ? describeRemovals(removals).trim() : '';
      if (!note) return content;
      logRemovals(removals);
      try {
        return JSON.stringify({ ...(JSON.parse(content) as Record<string, unknown>), workspace_note: note });
      } catch {
        return `${content}\n${note}`;
      }
    }

    function logRemovals(removals: FolderRemovals | undefined): void {
      if (removals && (removals.repositories.length || removals.packageConfigs.length)) {
        deps.logger.warn({ server: serverName, ...removals }, 'Disarmed what an MCP server left in its folder that would run outside the sandbox');
      }
    }

    async function describeFailure(error: unknown): Promise<string> {
      if (error instanceof McpError && error.code === (ErrorCode.RequestTimeout as number)) {
        breaker.failed();
        return toolError(`Error executing ${input.name}: MCP server '${serverName}' did not answer within ${config?.timeout} s`);
      }
      if (error instanceof McpError && error.code !== (ErrorCode.ConnectionClosed as number)) {
        // The server answered (bad arguments, unknown tool): it is alive.
        return toolError(`Error executing ${input.name}: ${error.message}`);
      }
      if (error instanceof McpReplyTooLargeError) {
        // The server answered; the transport closed on its answer. The next call connects again.
        await deps.pool.markBroken(server);
        return toolError(replyTooLarge(input.name, serverName, error.message));
      }
      // The connection is gone (process died, socket refused, reconnect backoff): drop it.
      breaker.failed();
      if (!(error instanceof McpTransportDownError)) {
        deps.logger.warn({ server: serverName, err: error }, 'MCP server transport failed');
        await deps.pool.markBroken(server);
      }
      const refused = breaker.refusal();
      return toolError(refused ? mcpErrors.circuitOpen(serverName, refused.failures, refused.retryInSeconds) : mcpErrors.transportDown(serverName));
    }
  };
}

/** Not the original's "transport is down": the server is up, and calling again the same way fails the same way. */
export function replyTooLarge(tool: string, server: string, why: string): string {
  return `Error executing ${tool}: MCP server '${server}' answered, but its reply was too large (${why}), so it was dropped and the connection closed. Ask for less at once (a narrower query, a page, a smaller range); the next call reconnects.`;
}
