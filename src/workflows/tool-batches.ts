// Splits one turn's tool calls into batches: independent calls run together, calls that need
// to be alone (shared state, the user) run by themselves, and the original order of side
// effects is kept. Pure: used by the workflow.
import type { ToolCallPlan } from './session-types';

export interface ToolBatch {
  concurrent: boolean;
  calls: ToolCallPlan[];
}

export function planToolBatches(calls: readonly ToolCallPlan[]): ToolBatch[] {
  const batches: ToolBatch[] = [];
  let run: ToolCallPlan[] = [];
  let reservedPaths: string[] = [];
  const closeRun = () => {
    if (run.length > 1) batches.push({ concurrent: true, calls: run });
    else if (run.length === 1) batches.push({ concurrent: false, calls: run });
    run = [];
    reservedPaths = [];
  };

  for (const call of calls) {
    const concurrency = call.concurrency;
    if (concurrency.mode === 'exclusive') {
      closeRun();
      batches.push({ concurrent: false, calls: [call] });
    } else if (concurrency.mode === 'path') {
      if (reservedPaths.some((reserved) => pathsOverlap(reserved, concurrency.path))) closeRun();
      run.push(call);
      reservedPaths.push(concurrency.path);
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
