// Splits one turn's tool calls into batches: independent calls run together, calls that need
// to be alone (shared state, the user) run by themselves, a write never races another call on
// the same path, and the original order of side effects is kept. Pure: used by the workflow.
import type { ToolCallPlan } from './session-types';

export interface ToolBatch {
  concurrent: boolean;
  calls: ToolCallPlan[];
}

export function planToolBatches(calls: readonly ToolCallPlan[]): ToolBatch[] {
  const batches: ToolBatch[] = [];
  let run: ToolCallPlan[] = [];
  let reserved: { path: string; write: boolean }[] = [];
  const closeRun = () => {
    if (run.length > 1) batches.push({ concurrent: true, calls: run });
    else if (run.length === 1) batches.push({ concurrent: false, calls: run });
    run = [];
    reserved = [];
  };

  for (const call of calls) {
    const concurrency = call.concurrency;
    if (concurrency.mode === 'exclusive') {
      closeRun();
      batches.push({ concurrent: false, calls: [call] });
    } else if (concurrency.mode === 'path') {
      const write = concurrency.access !== 'read';
      if (reserved.some((other) => (write || other.write) && pathsOverlap(other.path, concurrency.path))) closeRun();
      run.push(call);
      reserved.push({ path: concurrency.path, write });
    } else {
      run.push(call);
    }
  }
  closeRun();
  return batches;
}

/** True when one path is the other or contains it. */
export function pathsOverlap(a: string, b: string): boolean {
  const left = a.replace(/\/+$/, '') || '/';
  const right = b.replace(/\/+$/, '') || '/';
  if (left === right || left === '/' || right === '/') return true;
  return left.startsWith(`${right}/`) || right.startsWith(`${left}/`);
}

/**
 * The gated calls their own tool activities may assess: all of them when they start together, side
 * by side in one batch of at most `maxParallel` calls (their approvals come up together anyway),
 * else only a lone one. Gated calls spread over several batches, or more than start at once, are
 * assessed together first, so every approval the turn needs is asked at once.
 */
export function gatedInTheirActivities(batches: readonly ToolBatch[], gated: readonly ToolCallPlan[], maxParallel = Infinity): ToolCallPlan[] {
  if (gated.length <= 1) return [...gated];
  const ids = new Set(gated.map((call) => call.id));
  const holding = batches.filter((batch) => batch.calls.some((call) => ids.has(call.id)));
  const [only] = holding;
  return holding.length === 1 && only?.concurrent && only.calls.length <= maxParallel ? [...gated] : [];
}
