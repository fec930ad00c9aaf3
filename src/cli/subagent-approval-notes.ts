// `run` tells the person at the terminal when a sub-agent waits for an approval: only the root's
// own questions are prompted or printed, so a sub-agent's wait looked like a hang.
import { oneLine } from '../approval-signals/shown-call';
import { visibleText } from '../approval-signals/visible-text';
import type { DescendantApprovals } from '../workflows/delegation-types';

/** Returns, for each status, the lines to show for sub-agents whose oldest question is new. */
export function subagentApprovalNotes(rootSessionId: string, redact: (text: string) => string): (waiting: readonly DescendantApprovals[] | undefined) => string[] {
  const shown = new Map<string, string>();
  return (waiting) => {
    const notes: string[] = [];
    for (const entry of waiting ?? []) {
      const first = entry.first ?? '';
      if (entry.count < 1 || shown.get(entry.sessionId) === first) continue;
      shown.set(entry.sessionId, first);
      // The request is a model's (the sub-agent's) text: shown, never interpreted, secrets hidden.
      notes.push(
        `  ⏸ sub-agent ${visibleText(entry.sessionId)} waits for approval: ${oneLine(visibleText(redact(first)))}\n` +
          `      see it with: hermes-temporal pending ${rootSessionId}   answer with: hermes-temporal approve ${rootSessionId} <approvalId>  or  hermes-temporal deny ${rootSessionId} <approvalId>`,
      );
    }
    return notes;
  };
}
