// The hooks around one tool call, as the executeTool activity runs them: pre_tool_call may block
// the call (the model reads why), post_tool_call observes, transform_tool_result may replace the
// result. They run inside the activity, so what they decided is in its recorded result.
import { isErrorResult } from '../registry/results';
import type { PostToolCallPayload, PreToolCallPayload, ToolCallStatus } from './hook-names';
import type { HookRegistry, PreToolCallDecision } from './hook-registry';

export interface ToolCallIdentity {
  sessionId: string;
  toolCallId: string;
  name: string;
  parentToolCallId?: string;
}

export function preToolCallPayload(call: ToolCallIdentity, args: Record<string, unknown>): PreToolCallPayload {
  return {
    tool_name: call.name,
    args,
    task_id: call.sessionId,
    session_id: call.sessionId,
    tool_call_id: call.toolCallId,
    ...(call.parentToolCallId ? { parent_tool_call_id: call.parentToolCallId } : {}),
  };
}

/** Runs pre_tool_call; a block is told to post_tool_call observers too (status `blocked`). */
export async function checkBeforeCall(hooks: HookRegistry, payload: PreToolCallPayload): Promise<PreToolCallDecision> {
  if (!hooks.has('pre_tool_call')) return { action: 'allow' };
  const decision = await hooks.preToolCall(payload);
  if (decision.action === 'block') {
    await hooks.notify('post_tool_call', { ...payload, result: JSON.stringify({ error: decision.message }), duration_ms: 0, status: 'blocked', error_type: 'plugin_block', error_message: decision.message });
  }
  return decision;
}

/** post_tool_call, then transform_tool_result (its first string replaces the result). */
export async function afterCall(hooks: HookRegistry, payload: PreToolCallPayload, result: string, durationMs: number): Promise<string> {
  if (!hooks.has('post_tool_call') && !hooks.has('transform_tool_result')) return result;
  const status: ToolCallStatus = isErrorResult(result) ? 'error' : 'ok';
  const full: PostToolCallPayload = { ...payload, result, duration_ms: durationMs, status, ...(status === 'error' ? errorFields(result) : {}) };
  await hooks.notify('post_tool_call', full);
  return hooks.transform('transform_tool_result', full, result);
}

function errorFields(result: string): { error_type?: string; error_message?: string } {
  try {
    const parsed = JSON.parse(result) as { error?: unknown; error_type?: unknown };
    return {
      ...(typeof parsed.error_type === 'string' ? { error_type: parsed.error_type } : {}),
      ...(typeof parsed.error === 'string' ? { error_message: parsed.error } : {}),
    };
  } catch {
    return {};
  }
}
