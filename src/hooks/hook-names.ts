// The hook events, with the original Hermes names and keyword payloads (snake_case, so a hook
// ported from the Python agent reads the same fields). Hooks run on the worker only.

/** Events this runtime fires. Others may be registered (a warning is logged) but never fire. */
export const VALID_HOOKS = [
  'pre_tool_call',
  'post_tool_call',
  'transform_tool_result',
  'transform_terminal_output',
  'on_session_start',
  'on_session_end',
] as const;

export type HookName = (typeof VALID_HOOKS)[number];

export function isValidHook(name: string): name is HookName {
  return (VALID_HOOKS as readonly string[]).includes(name);
}

export interface PreToolCallPayload {
  tool_name: string;
  args: Record<string, unknown>;
  task_id: string;
  session_id: string;
  tool_call_id: string;
  /** Set for a call made by an execute_code script: the execute_code call it belongs to. */
  parent_tool_call_id?: string;
}

export type ToolCallStatus = 'ok' | 'error' | 'blocked';

export interface PostToolCallPayload extends PreToolCallPayload {
  result: string;
  duration_ms: number;
  status: ToolCallStatus;
  error_type?: string;
  error_message?: string;
}

export interface TransformTerminalOutputPayload {
  command: string;
  output: string;
  returncode: number;
  task_id: string;
  env_type: string;
}

export interface SessionStartPayload {
  session_id: string;
  model: string;
  platform: string;
}

export interface SessionEndPayload {
  session_id: string;
  task_id: string;
  completed: boolean;
  interrupted: boolean;
  model: string;
  platform: string;
  reason: string;
}

/** What each event's callbacks receive. */
export interface HookPayloads {
  pre_tool_call: PreToolCallPayload;
  post_tool_call: PostToolCallPayload;
  transform_tool_result: PostToolCallPayload;
  transform_terminal_output: TransformTerminalOutputPayload;
  on_session_start: SessionStartPayload;
  on_session_end: SessionEndPayload;
}

/** A callback: gets the payload, may return a decision (pre_tool_call) or a replacement string (transform_*). */
export type HookCallback = (payload: Record<string, unknown>) => unknown;
