// The model call: reads the transcript from the store, asks the model, stores its reply at the
// seq the workflow gave, and returns only what the workflow needs to schedule tools.
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { cancellationSignal } from '@temporalio/activity';
import type OpenAI from 'openai';
import { definitionsForTools } from '../registry/definitions';
import { INVALID_ARGUMENTS_RESULT, parseToolArguments } from '../registry/handle-function-call';
import { toolError } from '../registry/results';
import type { SecretRedactor } from '../environments/secret-redaction';
import type { ToolRegistry } from '../registry/registry';
import type { CallConcurrency, SchemaContext, ToolDefinition, ToolSettings } from '../registry/tool-entry';
import type { SessionStore, StoredMessage, StoredToolCall } from '../store/session-store';
import type { ModelTurn, ToolCallPlan } from '../workflows/session-types';
import { toChatMessages } from './chat-messages';
import { startHeartbeat } from './heartbeat';
import type { ModelClients } from './model-clients';
import { MODEL_FAILURE, toModelFailure } from './model-failures';
import { clip, summarizeToolCall } from './tool-call-summary';
import type { McpListingStore } from '../mcp/listing-store';
import { mcpDefinitions, planMcpCall } from './mcp-model-tools';
import { boundTurnPlans, uniqueToolCallIds } from './turn-plan-budget';

export interface CallModelInput {
  sessionId: string;
  /** Where the assistant reply is stored. */
  seq: number;
  model: string;
  baseUrl?: string;
  temperature?: number;
  /** What schema patching needs beyond the tool list (the session's delegation limits). */
  schemaContext?: SchemaContext;
  /** Digest of the session's MCP listing (kept in the store; history carries only this). */
  mcpListing?: string;
}

/** Arguments of workflow-handled calls travel through history: bounded. */
const MAX_WORKFLOW_CALL_ARGUMENT_CHARS = 256_000;

/** Final answers larger than this travel through history clipped; the store has them whole. */
const MAX_ANSWER_CHARS = 32_000;

export function createCallModelActivity(deps: {
  registry: ToolRegistry;
  store: SessionStore;
  models: ModelClients;
  redactor: SecretRedactor;
  /** model.retry_unreachable: back off on an endpoint that has never answered. */
  retryUnreachable?: boolean;
  /** The worker's tool settings (a tool's concurrency may depend on them). */
  settings?: ToolSettings;
  mcpListings?: McpListingStore;
}) {
  const definitionCache = new Map<string, ToolDefinition[]>();

  async function toolDefinitions(toolNames: string[], schemaContext: SchemaContext): Promise<ToolDefinition[]> {
    const key = `${deps.registry.generation}:${toolNames.join(',')}:${JSON.stringify(schemaContext)}`;
    let definitions = definitionCache.get(key);
    if (!definitions) {
      definitions = await definitionsForTools(toolNames, { registry: deps.registry, schemaContext });
      definitionCache.set(key, definitions);
    }
    return definitions;
  }

  return async function callModel(input: CallModelInput): Promise<ModelTurn> {
    const session = await deps.store.getSession(input.sessionId);
    if (!session) throw ApplicationFailure.nonRetryable(`Session ${input.sessionId} is not in the store`, 'Hermes.Store.MissingSession');

    const mcpTools = input.mcpListing ? ((await deps.mcpListings?.load(input.mcpListing))?.tools ?? []) : [];
    const mcpByName = new Map(mcpTools.map((tool) => [tool.name, tool]));
    // A retry after the reply was stored must not ask (and pay) the model again.
    const stored = await deps.store.getMessage(input.sessionId, input.seq);
    if (stored) return planTurn(stored, session.cwd, session.toolNames);

    const history = await deps.store.getMessages(input.sessionId, { limit: input.seq });
    // Built-in tools win a name clash (the listing already left such MCP tools out).
    const tools = [...(await toolDefinitions(session.toolNames, input.schemaContext ?? {})), ...mcpDefinitions(mcpTools, session.toolNames)];
    // A reply that could not be kept would be asked for (and paid) again on every retry: a store
    // that cannot be written fails the turn here, before the model is called.
    await deps.store.assertWritable?.();
    const heartbeat = startHeartbeat();
    let response: OpenAI.Chat.Completions.ChatCompletion;
    try {
      response = await deps.models.get(input.baseUrl).chat.completions.create(
        {
          model: input.model,
          messages: toChatMessages(history),
          ...(tools.length ? { tools } : {}),
          ...(input.temperature !== undefined ? { temperature: input.temperature } : {}),
        },
        { signal: cancellationSignal() },
      );
    } catch (error) {
      heartbeat.stop();
      if ((error as { status?: unknown }).status !== undefined) deps.models.markAnswered(input.baseUrl);
      // The session's first call to an endpoint no call has ever reached: fail fast on a wrong URL.
      const firstContact = !deps.models.hasAnswered(input.baseUrl) && !history.some((message) => message.role === 'assistant');
      throw toModelFailure(error, deps.models.baseUrlFor(input.baseUrl), { unreachableIsFinal: firstContact && !deps.retryUnreachable });
    }
    deps.models.markAnswered(input.baseUrl);

    const choice = response.choices?.[0];
    if (!choice) {
      heartbeat.stop();
      throw ApplicationFailure.create({ message: 'The model returned no choices', type: MODEL_FAILURE.emptyResponse });
    }
    const functionCalls = (choice.message.tool_calls ?? []).filter((call) => call.type === 'function');
    const ids = uniqueToolCallIds(functionCalls.map((call) => call.id), input.seq);
    const toolCalls: StoredToolCall[] = functionCalls.map((call, index) => ({
      id: ids[index] as string,
      name: textOf(call.function.name),
      arguments: textOf(call.function.arguments),
    }));
    // Still heartbeating: a write waiting for a full disk to free up keeps the reply alive.
    const message = await deps.store
      .appendMessage(input.sessionId, {
        seq: input.seq,
        role: 'assistant',
        content: choice.message.content ?? null,
        ...(toolCalls.length ? { toolCalls } : {}),
      })
      .finally(() => heartbeat.stop());
    const usage = response.usage ? { input: response.usage.prompt_tokens ?? 0, output: response.usage.completion_tokens ?? 0 } : undefined;
    return { ...planTurn(message, session.cwd, session.toolNames, choice.finish_reason), ...(usage ? { usage } : {}) };

    function planTurn(reply: StoredMessage, cwd: string, toolNames: readonly string[], finishReason: string | null = null): ModelTurn {
      const calls = reply.toolCalls ?? [];
      const plans = calls.map((call) => {
        const mcpTool = toolNames.includes(call.name) ? undefined : mcpByName.get(call.name);
        return mcpTool && input.mcpListing ? planMcpCall(call, mcpTool, input.mcpListing, deps.redactor) : planCall(call, cwd, toolNames);
      });
      return {
        seq: reply.seq,
        toolCalls: boundTurnPlans(plans, (name) => toolNames.includes(name) || mcpByName.has(name)),
        content: calls.length ? null : clip(reply.content ?? '', MAX_ANSWER_CHARS),
        finishReason,
      };
    }
  };

  function planCall(call: StoredToolCall, cwd: string, toolNames: readonly string[]): ToolCallPlan {
    const entry = deps.registry.get(call.name);
    // A tool the session does not have goes to executeTool, which answers "Unknown tool".
    if (entry?.runsInWorkflow && toolNames.includes(call.name)) {
      return { id: call.id, name: call.name, summary: deps.redactor.redact(summarizeToolCall(call.name, call.arguments)), concurrency: { mode: 'exclusive' }, workflowCall: workflowCallOf(call) };
    }
    const needsAssessment = entry?.assess !== undefined;
    // The summary names the call in history, the UI and `run --json` events: no secret in it.
    const summary = deps.redactor.redact(summarizeToolCall(call.name, call.arguments));
    return {
      id: call.id,
      name: call.name,
      summary,
      concurrency: concurrencyOf(call, cwd),
      ...(needsAssessment ? { needsAssessment } : {}),
    };
  }

  function workflowCallOf(call: StoredToolCall): NonNullable<ToolCallPlan['workflowCall']> {
    if (call.arguments.length > MAX_WORKFLOW_CALL_ARGUMENT_CHARS) {
      return { errorResult: toolError(`${call.name} arguments are ${call.arguments.length} characters; at most ${MAX_WORKFLOW_CALL_ARGUMENT_CHARS} are accepted.`) };
    }
    const args = parseToolArguments(call.arguments);
    return args ? { arguments: args } : { errorResult: INVALID_ARGUMENTS_RESULT };
  }

  /** Asks the tool how this call may share the turn; anything unclear runs alone. */
  function concurrencyOf(call: StoredToolCall, cwd: string): CallConcurrency {
    const entry = deps.registry.get(call.name);
    const args = parseToolArguments(call.arguments);
    if (!entry || !args) return { mode: 'exclusive' };
    try {
      const concurrency = entry.concurrency(args, deps.settings);
      if (concurrency.mode !== 'path') return concurrency;
      if (typeof concurrency.path !== 'string' || !concurrency.path.trim()) return { mode: 'exclusive' };
      return { ...concurrency, path: path.resolve(cwd, concurrency.path) };
    } catch {
      return { mode: 'exclusive' };
    }
  }
}

/** A broken endpoint may send a field that should be text as something else (or nothing). */
function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  return value === undefined || value === null ? '' : JSON.stringify(value);
}
