// execute_code's tool calls, served by the session workflow while the script's activity runs.
// Why this shape: each call must wait durably at the approval gate (a workflow condition) and be
// recorded like any call, but the script is a live process on one worker. So the script's
// activity stays running (heartbeating) and, per call, writes the request into the session store
// (a nested record at a seq reserved here) and rings the workflow with a signal naming only the
// call's index; the workflow gates the call and runs it as an ordinary executeTool activity,
// which stores the result at the next seq, where the script's activity reads it. Arguments and
// results stay in the store (not history); the signal decides nothing by itself: a forged or late
// one names a request that is absent, or already served, and is ignored.
import { condition, setHandler } from '@temporalio/workflow';
import { CODE_LIMITS, innerCallId } from '../code-execution/callable-tools';
import { codeToolCallSignal, type CodeToolCallRequest } from './code-call-messages';
import { parseCodeToolCallRequest } from './signal-payloads';
import type { ExecuteToolInput, ToolCallPlan, ToolOutcome } from './session-types';

interface OpenScript {
  firstSeq: number;
  count: number;
  queue: CodeToolCallRequest[];
  seen: Set<number>;
}

export class CodeCalls {
  private readonly scripts = new Map<string, OpenScript>();

  constructor(
    private readonly reserveSeqs: (count: number) => number,
    /** Gates and runs one call (stores its result at `requestSeq + 1`). */
    private readonly runInner: (call: ToolCallPlan, requestSeq: number, parentCallId: string) => Promise<void>,
  ) {
    setHandler(codeToolCallSignal, (payload) => {
      const request = parseCodeToolCallRequest(payload);
      const script = request && this.scripts.get(request.parentCallId);
      if (!request || !script || request.index < 0 || request.index >= script.count || script.seen.has(request.index)) return;
      script.seen.add(request.index);
      script.queue.push(request);
    });
  }

  /** Runs the execute_code activity (`execute`) and serves its script's tool calls until it ends. */
  async serve(parentCallId: string, execute: (innerCalls: NonNullable<ExecuteToolInput['innerCalls']>) => Promise<ToolOutcome>): Promise<ToolOutcome> {
    // Two seqs per call: the request record, then its result.
    const count = CODE_LIMITS.maxToolCalls;
    const script: OpenScript = { firstSeq: this.reserveSeqs(2 * count), count, queue: [], seen: new Set() };
    this.scripts.set(parentCallId, script);
    let finished = false;
    const serving = (async () => {
      for (;;) {
        await condition(() => script.queue.length > 0 || finished);
        const request = script.queue.shift();
        // Once the script has ended nobody waits for an answer: what it still asked is dropped.
        if (!request || finished) return;
        const plan: ToolCallPlan = {
          id: innerCallId(parentCallId, request.index),
          name: request.name,
          summary: `${request.summary.slice(0, 300)} (execute_code)`,
          concurrency: { mode: 'exclusive' },
          // The assessment reads the stored request and the registry: a tool with nothing to assess passes.
          needsAssessment: true,
        };
        await this.runInner(plan, script.firstSeq + 2 * request.index, parentCallId);
      }
    })();
    // A cancelled session rejects the wait above while the script's activity still winds down:
    // left unhandled until then, the rejection failed every workflow task, so the cancellation
    // never reached the script. It is rethrown once the activity has ended.
    serving.catch(() => undefined);
    try {
      return await execute({ firstSeq: script.firstSeq, count });
    } finally {
      finished = true;
      await serving;
      this.scripts.delete(parentCallId);
    }
  }
}
