// Judging several calls of one reply in one activity. A reply may hold two thousand gated calls:
// one activity each meant thousands of completions arriving while the workflow worked, more than
// the server buffers (it then failed the workflow task, and the next one had more to do). Here a
// batch is read from the store once, judged a few calls at a time, and returned in order, as many
// as fit in one result; the workflow asks again for the rest.
import type { CommandAssessment } from '../approval-signals/approval-types';
import type { EnvironmentHandle } from '../environments/terminal-environment';
import type { McpCallTarget } from '../mcp/listing-types';
import type { SessionStore } from '../store/session-store';
import type { AssessCommandInput, LoadedCall } from './assess-tool-call';

export interface AssessToolCallsInput {
  sessionId: string;
  assistantSeq: number;
  environment: EnvironmentHandle;
  calls: { toolCallId: string; mcp?: McpCallTarget }[];
}

/**
 * What one result holds (one assessment always goes, whatever its size). Small, since the server
 * pages history by batches of events, not bytes, and the TypeScript client reads no message past
 * 4 MB: forty batches finishing together should not crowd one page with megabytes.
 */
export const MAX_ASSESSMENTS_RESULT_BYTES = 32_000;
/** Calls judged at once: each may wait on the backend (links, digests) while another computes. */
const JUDGED_AT_ONCE = 8;

export function createAssessToolCalls(store: SessionStore, assess: (input: AssessCommandInput, loaded: LoadedCall) => Promise<CommandAssessment>) {
  return async function assessToolCalls(input: AssessToolCallsInput): Promise<CommandAssessment[]> {
    const [message, session] = await Promise.all([store.getMessage(input.sessionId, input.assistantSeq), store.getSession(input.sessionId)]);
    const judge = ({ toolCallId, mcp }: AssessToolCallsInput['calls'][number]) =>
      assess(
        { sessionId: input.sessionId, assistantSeq: input.assistantSeq, toolCallId, environment: input.environment, ...(mcp ? { mcp } : {}) },
        { call: message?.toolCalls?.find((candidate) => candidate.id === toolCallId), session },
      );
    const assessments: CommandAssessment[] = [];
    let bytes = 0;
    for (let start = 0; start < input.calls.length; start += JUDGED_AT_ONCE) {
      for (const assessment of await Promise.all(input.calls.slice(start, start + JUDGED_AT_ONCE).map(judge))) {
        bytes += Buffer.byteLength(JSON.stringify(assessment));
        if (assessments.length && bytes > MAX_ASSESSMENTS_RESULT_BYTES) return assessments;
        assessments.push(assessment);
      }
    }
    return assessments;
  };
}
