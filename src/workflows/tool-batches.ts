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
  let reserved = { any: new ReservedPaths(), written: new ReservedPaths() };
  const closeRun = () => {
    if (run.length > 1) batches.push({ concurrent: true, calls: run });
    else if (run.length === 1) batches.push({ concurrent: false, calls: run });
    run = [];
    reserved = { any: new ReservedPaths(), written: new ReservedPaths() };
  };

  for (const call of calls) {
    const concurrency = call.concurrency;
    if (concurrency.mode === 'exclusive') {
      closeRun();
      batches.push({ concurrent: false, calls: [call] });
    } else if (concurrency.mode === 'path') {
      // A write waits for any call on its path; a read only for a write.
      const write = concurrency.access !== 'read';
      if ((write ? reserved.any : reserved.written).overlaps(concurrency.path)) closeRun();
      run.push(call);
      reserved.any.add(concurrency.path);
      if (write) reserved.written.add(concurrency.path);
    } else {
      run.push(call);
    }
  }
  closeRun();
  return batches;
}

/** True when one path is the other or contains it. */
export function pathsOverlap(a: string, b: string): boolean {
  const left = withoutTrailingSlashes(a);
  const right = withoutTrailingSlashes(b);
  if (left === right || left === '/' || right === '/') return true;
  return left.startsWith(`${right}/`) || right.startsWith(`${left}/`);
}

/**
 * Paths reserved by a run, answering pathsOverlap against all of them in time linear in the
 * path's length: checked pair by pair, a reply of 2,048 writes took half a second of one workflow task.
 */
class ReservedPaths {
  private readonly paths = new Set<string>();
  /** Every folder a reserved path lies under (`/w/src/x.ts`: `/w`, `/w/src`). */
  private readonly folders = new Set<string>();

  add(path: string): void {
    const normal = withoutTrailingSlashes(path);
    this.paths.add(normal);
    for (const folder of foldersAbove(normal)) this.folders.add(folder);
  }

  overlaps(path: string): boolean {
    if (!this.paths.size) return false;
    const normal = withoutTrailingSlashes(path);
    if (normal === '/' || this.paths.has('/') || this.paths.has(normal) || this.folders.has(normal)) return true;
    return foldersAbove(normal).some((folder) => this.paths.has(folder));
  }
}

function withoutTrailingSlashes(path: string): string {
  return path.replace(/\/+$/, '') || '/';
}

/** The text before each `/` of the path but a leading one: what `path` starts with, followed by `/`. */
function foldersAbove(path: string): string[] {
  const folders: string[] = [];
  for (let index = path.indexOf('/', 1); index > 0; index = path.indexOf('/', index + 1)) folders.push(path.slice(0, index));
  return folders;
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
