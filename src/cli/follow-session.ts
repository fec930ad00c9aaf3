// Follows a running session from the client side: polls the status query and turns new tool
// events into a stream, then reports how the session ended.
import { WorkflowFailedError } from '@temporalio/client';
import type { SessionHandle } from '../temporal/sessions';
import { statusQuery } from '../workflows/messages';
import type { SessionResult, SessionStatus, ToolEvent } from '../workflows/session-types';
import { ChildFollower, type DescendantEvent } from './follow-children';

export interface FinalEvent {
  type: 'final';
  status: SessionResult['status'] | 'failed' | 'cancelled';
  answer: string;
  reason?: string;
  turns?: number;
  toolCalls?: number;
}

export type FollowEvent = ToolEvent | DescendantEvent | FinalEvent;

export async function followSession(
  handle: SessionHandle,
  onEvent: (event: FollowEvent) => void,
  options: { pollMs?: number; onStatus?: (status: SessionStatus) => void; followChildren?: boolean } = {},
): Promise<FinalEvent> {
  let lastIndex = -1;
  const children = options.followChildren === false ? undefined : new ChildFollower(handle.client, onEvent);
  let done = false;
  const poll = async () => {
    try {
      const status = await handle.query(statusQuery);
      const fresh = status.events.filter((event) => event.index > lastIndex);
      lastIndex = Math.max(lastIndex, ...fresh.map((event) => event.index));
      // A sub-agent's last tool lines come before the line that says it finished.
      for (const event of fresh) if (event.type !== 'child_finished') onEvent(event);
      await children?.poll(status);
      for (const event of fresh) if (event.type === 'child_finished') onEvent(event);
      options.onStatus?.(status);
    } catch {
      // The query can fail between runs or while no worker is polling; try again next tick.
    }
  };
  const poller = (async () => {
    while (!done) {
      await poll();
      await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 250));
    }
  })();

  let final: FinalEvent;
  try {
    const result = await handle.result();
    final = { type: 'final', status: result.status, answer: result.answer, reason: result.reason, turns: result.turns, toolCalls: result.toolCalls };
  } catch (error) {
    final = failureEvent(error);
  }
  done = true;
  await poller;
  await poll();
  onEvent(final);
  return final;
}

function failureEvent(error: unknown): FinalEvent {
  if (error instanceof WorkflowFailedError) {
    const cause = error.cause;
    const cancelled = cause?.name === 'CancelledFailure';
    return { type: 'final', status: cancelled ? 'cancelled' : 'failed', answer: '', reason: cause?.message ?? error.message };
  }
  return { type: 'final', status: 'failed', answer: '', reason: error instanceof Error ? error.message : String(error) };
}
