// The original stops a memory tool that keeps failing to make room (issue #42405): after three
// failed consolidation attempts in a row the model is told to leave memory alone and answer. The
// tool runs in an activity without turn state, so the streak is read back from the transcript.
import type { SessionStore } from '../store/session-store';
import type { MemoryResponse } from '../memory/memory-store';

export const MAX_CONSOLIDATION_FAILURES = 3;
/** Messages read back: enough for a streak, small enough to stay cheap. */
const LOOKBACK_MESSAGES = 60;

/** A failure the model is asked to fix by consolidating (over the limit, nothing matched, batch refused). */
export function isConsolidationFailure(answer: MemoryResponse): boolean {
  return answer.success === false && Array.isArray(answer.current_entries);
}

/** Memory consolidation failures since the last memory success or user message. */
export async function consolidationFailureStreak(store: SessionStore, sessionId: string): Promise<number> {
  const recent = await store.getMessages(sessionId, { last: LOOKBACK_MESSAGES });
  let streak = 0;
  for (const message of recent.reverse()) {
    if (message.role === 'user') break;
    if (message.role !== 'tool' || message.name !== 'memory' || !message.content) continue;
    const answer = parse(message.content);
    if (answer?.success === true) break;
    if (answer && isConsolidationFailure(answer)) streak += 1;
  }
  return streak;
}

/** The answer after this failure: itself while under the cap, else the instruction to stop. */
export function capConsolidationFailures(answer: MemoryResponse, failuresBefore: number): MemoryResponse {
  const failures = failuresBefore + 1;
  if (failures <= MAX_CONSOLIDATION_FAILURES) return answer;
  return {
    success: false,
    done: true,
    error:
      `Memory consolidation failed ${failures} times this turn. Stop retrying memory calls — leave memory unchanged for now ` +
      'and continue with your reply to the user. The fact can be saved in a later turn.',
  };
}

function parse(content: string): MemoryResponse | undefined {
  try {
    const value: unknown = JSON.parse(content);
    return typeof value === 'object' && value !== null ? (value as MemoryResponse) : undefined;
  } catch {
    return undefined;
  }
}
