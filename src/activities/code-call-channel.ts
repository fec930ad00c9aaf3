// The execute_code activity's side of a script's tool calls (see src/workflows/code-calls.ts):
// store the request at its reserved seq, ring the workflow, then wait for the result the
// workflow's executeTool stores at the next seq. The wait heartbeats (the activity's loop does)
// and ends with the activity's cancellation.
import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { callableTools, codeCallRefusal, INNER_CALL_RECORD_NAME, innerCallId } from '../code-execution/callable-tools';
import type { SecretRedactor } from '../environments/secret-redaction';
import { toolError } from '../registry/results';
import type { SessionStore } from '../store/session-store';
import type { CodeToolCallRequest } from '../workflows/code-call-messages';
import type { ExecuteToolInput } from '../workflows/session-types';
import { summarizeToolCall } from './tool-call-summary';

/** Sends the request's doorbell to the session workflow (a Temporal signal). */
export type SignalSession = (workflowId: string, request: CodeToolCallRequest) => Promise<void>;

const POLL_INTERVAL_MS = 200;

export function createCodeCallChannel(deps: {
  store: SessionStore;
  signalSession: SignalSession;
  redactor: SecretRedactor;
  input: ExecuteToolInput & { innerCalls: NonNullable<ExecuteToolInput['innerCalls']> };
  workflowId: string;
  sessionTools: readonly string[];
  signal: AbortSignal;
}): { callTool: (name: string, args: Record<string, unknown>) => Promise<string>; callableTools: string[]; sawSensitive: () => boolean } {
  const { input, store } = deps;
  const callable = callableTools(deps.sessionTools);
  // Each call waiting for its result listens for the cancellation while it sleeps: a script's
  // Promise.all of eleven calls made Node warn of a listener leak on the worker's stderr.
  setMaxListeners(input.innerCalls.count + 10, deps.signal);
  let next = 0;
  let sawSensitive = false;
  const callTool = async (name: string, args: Record<string, unknown>): Promise<string> => {
    // A session never hears of a tool it cannot call, and a script cannot reach one either.
    if (!callable.includes(name)) return toolError(`${name} cannot be called from execute_code in this session; available: ${callable.join(', ') || 'none'}`);
    const refusal = codeCallRefusal(name, args);
    if (refusal) return toolError(refusal);
    const index = next++;
    if (index >= input.innerCalls.count) return toolError(`Tool call limit reached: a script may make at most ${input.innerCalls.count} tool calls`);
    const requestSeq = input.innerCalls.firstSeq + 2 * index;
    const argumentsText = JSON.stringify(args);
    // The request is a nested record: an assistant-role message the model did not write (named so).
    await store.appendMessage(input.sessionId, {
      seq: requestSeq,
      role: 'assistant',
      content: null,
      name: INNER_CALL_RECORD_NAME,
      toolCalls: [{ id: innerCallId(input.toolCallId, index), name, arguments: argumentsText }],
    });
    await deps.signalSession(deps.workflowId, { parentCallId: input.toolCallId, index, name, summary: deps.redactor.redact(summarizeToolCall(name, argumentsText)) });
    for (;;) {
      const result = await store.getMessage(input.sessionId, requestSeq + 1);
      if (result) {
        if (result.sensitive) sawSensitive = true;
        return result.content ?? '';
      }
      await sleep(POLL_INTERVAL_MS, undefined, { signal: deps.signal });
    }
  };
  // A script that printed a result only a person's approval gave hands it on in its own result.
  return { callTool, callableTools: callable, sawSensitive: () => sawSensitive };
}
