// Calls the gate refused run nothing, so those that would run one after another are written
// together, REFUSALS_STORED_TOGETHER to an activity. A reply of two thousand dangerous commands,
// unanswered, cost an activity each: ~35 s one after another and 6,000 history events.
import type { ApprovalGateResult } from '../approval-signals/approval-types';
import { REFUSALS_STORED_TOGETHER, type ToolCallPlan } from './session-types';
import type { ToolBatch } from './tool-batches';

export class RefusedCalls {
  /** Calls whose gate has refused them, known without waiting (a promise says so only when awaited). */
  private readonly refused = new Map<string, Extract<ApprovalGateResult, { approved: false }>>();

  constructor(gates: ReadonlyMap<string, Promise<ApprovalGateResult> | string>) {
    for (const [id, gate] of gates) {
      if (typeof gate === 'string') continue;
      gate.then(
        (decided) => !decided.approved && this.refused.set(id, decided),
        () => undefined, // the call's own wait reports it
      );
    }
  }

  /** The gate's refusal of `call`, if it has refused it by now. */
  refusalOf(call: ToolCallPlan): Extract<ApprovalGateResult, { approved: false }> | undefined {
    return call.mcp || call.workflowCall ? undefined : this.refused.get(call.id);
  }

  /**
   * The calls of the batches run alone from `batches[from]` on that the gate has already refused,
   * one after another (at most REFUSALS_STORED_TOGETHER): each would only write its refusal.
   */
  refusedRun(batches: readonly ToolBatch[], from: number): ToolCallPlan[] {
    const run: ToolCallPlan[] = [];
    // By index, not a copy of the rest: a reply of two thousand calls asks this forty times.
    for (let index = from; index < batches.length && run.length < REFUSALS_STORED_TOGETHER; index++) {
      const { concurrent, calls } = batches[index] as ToolBatch;
      const call = calls[0];
      if (concurrent || !call || calls.length > 1 || !this.refusalOf(call)) break;
      run.push(call);
    }
    return run;
  }
}
