// Bounds what one model reply puts into workflow history. The reply is kept whole in the store;
// only its schedule (a ToolCallPlan per call) crosses into history, where a hostile or runaway
// reply (a tool name or call id of megabytes, many large todo/delegate_task calls) would exceed
// Temporal's 2 MB payload limit and fail the session, or be carried from run to run.
import { ApplicationFailure } from '@temporalio/common';
import { toolError } from '../registry/results';
import type { ToolCallPlan } from '../workflows/session-types';
import { MODEL_FAILURE } from './model-failures';
import { clip } from './tool-call-summary';

/** Above any real id (OpenAI's and Anthropic's are ~30 characters); a longer one is replaced. */
export const MAX_TOOL_CALL_ID_CHARS = 64;
/** OpenAI's limit for a function name; a longer unknown name is only quoted, clipped. */
export const MAX_UNKNOWN_TOOL_NAME_CHARS = 64;
/** What one reply's plans may take in history; calls past it are answered "not run". */
export const TURN_PLAN_BUDGET_BYTES = 800_000;
/**
 * Answered calls take history too (about 500 bytes at most each): with the budget, this many
 * stay under Temporal's 2 MB payload limit. A reply with more is refused as a whole.
 */
export const MAX_TOOL_CALLS_PER_TURN = 2048;
/** An answered call's summary: enough to name it in the UI. */
const ANSWERED_SUMMARY_CHARS = 40;

/**
 * The ids the reply's calls are stored under: the model's own, unless missing, too long or used
 * by an earlier call of the reply (results are matched to calls by id, so two calls sharing one
 * would run the first one's arguments twice and lose a result).
 */
export function uniqueToolCallIds(ids: readonly unknown[], seq: number): string[] {
  const taken = new Set<string>();
  const kept = ids.map((id) => {
    if (typeof id !== 'string' || !id || id.length > MAX_TOOL_CALL_ID_CHARS || taken.has(id)) return undefined;
    taken.add(id);
    return id;
  });
  return kept.map((id, index) => {
    if (id !== undefined) return id;
    let made = `call_${seq}_${index}`;
    for (let suffix = 1; taken.has(made); suffix++) made = `call_${seq}_${index}_${suffix}`;
    taken.add(made);
    return made;
  });
}

/**
 * The plans as they may enter history: an over-long unknown tool name is answered "Unknown tool"
 * with a clipped quote, and calls past the turn's budget are answered "not run" (in order, so the
 * earlier calls of the reply run). Throws a clear, final failure for a reply with too many calls.
 */
export function boundTurnPlans(plans: readonly ToolCallPlan[], isKnownTool: (name: string) => boolean): ToolCallPlan[] {
  if (plans.length > MAX_TOOL_CALLS_PER_TURN) {
    throw ApplicationFailure.create({
      message: `The model's reply holds ${plans.length} tool calls; at most ${MAX_TOOL_CALLS_PER_TURN} can be scheduled in one turn (the reply is kept in the session store)`,
      type: MODEL_FAILURE.replyTooLarge,
      nonRetryable: true,
    });
  }
  let used = 0;
  return plans.map((plan) => {
    const named = plan.name.length > MAX_UNKNOWN_TOOL_NAME_CHARS && !isKnownTool(plan.name) ? unknownToolPlan(plan) : plan;
    const size = Buffer.byteLength(JSON.stringify(named));
    const bounded = used + size <= TURN_PLAN_BUDGET_BYTES ? named : notScheduledPlan(named);
    used += bounded === named ? size : Buffer.byteLength(JSON.stringify(bounded));
    return bounded;
  });
}

function unknownToolPlan(plan: ToolCallPlan): ToolCallPlan {
  const quoted = clip(plan.name, MAX_UNKNOWN_TOOL_NAME_CHARS);
  return answeredPlan(plan, toolError(`Unknown tool: ${quoted} (a name of ${plan.name.length} characters)`));
}

function notScheduledPlan(plan: ToolCallPlan): ToolCallPlan {
  return answeredPlan(
    plan,
    toolError(`Not run: this reply's tool calls were too large together to schedule in one turn (about ${TURN_PLAN_BUDGET_BYTES / 1000} KB of names, paths and arguments); make fewer or smaller calls.`),
  );
}

/** Nothing runs: the workflow stores `errorResult` as the call's result. */
function answeredPlan(plan: ToolCallPlan, errorResult: string): ToolCallPlan {
  const name = clip(plan.name, MAX_UNKNOWN_TOOL_NAME_CHARS);
  return { id: plan.id, name, summary: clip(plan.summary, ANSWERED_SUMMARY_CHARS), concurrency: { mode: 'exclusive' }, workflowCall: { errorResult } };
}
