// Which tools an execute_code script may call, their parameters in order (for positional calls),
// and the limits of one script. Pure data, shared by the tool, the activity and the workflow.

/** The original's SANDBOX_ALLOWED_TOOLS, in its fixed documentation order. */
export const CODE_CALLABLE_TOOLS = ['web_search', 'web_extract', 'read_file', 'write_file', 'search_files', 'patch', 'terminal'] as const;

/** Parameter names in order: `read_file("a.txt", 1, 50)` means `{path, offset, limit}`. */
export const CODE_TOOL_PARAMETERS: Readonly<Record<string, readonly string[]>> = {
  web_search: ['query', 'limit'],
  web_extract: ['urls', 'char_limit'],
  read_file: ['path', 'offset', 'limit'],
  write_file: ['path', 'content'],
  search_files: ['pattern', 'target', 'path', 'file_glob', 'limit'],
  patch: ['path', 'old_string', 'new_string', 'replace_all'],
  terminal: ['command', 'timeout', 'workdir'],
};

/** What a script's terminal call may not turn on: it runs in the foreground, as the original's. */
const FOREGROUND_ONLY = ['background', 'pty', 'notify_on_complete'];

/** Why a script may not make this call with these arguments, or undefined when it may. */
export function codeCallRefusal(name: string, args: Record<string, unknown> | undefined): string | undefined {
  if (name !== 'terminal' || !args) return undefined;
  const turnedOn = FOREGROUND_ONLY.filter((key) => args[key] !== undefined && args[key] !== false);
  if (!turnedOn.length) return undefined;
  return `terminal() in execute_code runs in the foreground only: ${turnedOn.join(', ')} may not be set (start background processes with the terminal tool itself)`;
}

export const CODE_LIMITS = {
  /** Seconds the script may run, not counting time spent waiting for its tool calls (approvals may take hours). */
  timeoutSeconds: 300,
  maxToolCalls: 50,
  maxStdoutBytes: 50_000,
  maxStderrBytes: 10_000,
} as const;

/** The tools of the session a script may call. */
export function callableTools(sessionTools: Iterable<string>): string[] {
  const available = new Set(sessionTools);
  return CODE_CALLABLE_TOOLS.filter((name) => available.has(name));
}

/** The transcript id of a script's `index`-th tool call: nested under the execute_code call. */
export function innerCallId(parentCallId: string, index: number): string {
  return `${parentCallId}.code-${index}`;
}

/** The execute_code call a script's call belongs to, or undefined for the model's own calls. */
export function parentOfInnerCall(callId: string): string | undefined {
  const match = /^(.*)\.code-\d+$/.exec(callId);
  return match?.[1];
}

/** The `name` on the assistant-role record of a script's tool call: the model did not make it. */
export const INNER_CALL_RECORD_NAME = 'execute_code';
