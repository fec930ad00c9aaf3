// A turn's calls stop starting once the server suggests continuing as new. Continue-as-new waits
// for the turn's end, and one reply can hold 2,048 calls, each execute_code call fifty more of its
// own: past the server's history limit (51,200 events by default) the server terminates the
// session, with no cleanup (its sub-agents and background processes live on, the store says it
// runs). A call refused here costs a few events; the model makes it again in the next run.
import { patched, workflowInfo } from '@temporalio/workflow';

/** Histories recorded before calls were refused mid-turn replay without the refusals. */
const HISTORY_BUDGET_PATCH = 'history-budget-per-call';

/** True when no further call of this turn may start: this run's history is as long as it should get. */
export function historyFull(): boolean {
  return workflowInfo().continueAsNewSuggested && patched(HISTORY_BUDGET_PATCH);
}

export const HISTORY_FULL_RESULT = JSON.stringify({
  error:
    "Not run: this session's history is full for this run, so the rest of this turn's tool calls were not started. " +
    'The session continues in a fresh run after this turn: make the call again then.',
});
