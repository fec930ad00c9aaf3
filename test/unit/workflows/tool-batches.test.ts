// How one turn's tool calls are grouped: what runs together, what runs alone, and that the order
// of side effects is always the order the model asked for.
import type { CallConcurrency } from '../../../src/registry/tool-entry';
import { gatedInTheirActivities, pathsOverlap, planToolBatches } from '../../../src/workflows/tool-batches';
import type { ToolCallPlan } from '../../../src/workflows/session-types';

/** A call written as `p` (parallel), `x` (exclusive) or a path (path-scoped). */
function call(id: string, spec: string): ToolCallPlan {
  const concurrency: CallConcurrency =
    spec === 'p' ? { mode: 'parallel' } : spec === 'x' ? { mode: 'exclusive' } : { mode: 'path', path: spec };
  return { id, name: 'tool', summary: id, concurrency };
}

/** Calls a, b, c, ... with the given specs. */
function calls(...specs: string[]): ToolCallPlan[] {
  return specs.map((spec, index) => call(String.fromCharCode(97 + index), spec));
}

/** Batches as strings: `[a b]` runs concurrently, `a` runs alone. */
function shape(plan: ToolCallPlan[]): string[] {
  return planToolBatches(plan).map((batch) => {
    const ids = batch.calls.map((c) => c.id).join(' ');
    return batch.concurrent ? `[${ids}]` : ids;
  });
}

describe('planToolBatches', () => {
  it.each<[description: string, specs: string[], expected: string[]]>([
    ['no calls give no batches', [], []],
    ['a single call runs on its own', ['p'], ['a']],
    ['independent calls all run together in one batch', ['p', 'p', 'p'], ['[a b c]']],
    ['an exclusive call alone stays alone', ['x'], ['a']],
    ['an exclusive call splits the run around it and keeps its place', ['p', 'p', 'x', 'p', 'p'], ['[a b]', 'c', '[d e]']],
    ['consecutive exclusive calls run one after another', ['x', 'x', 'x'], ['a', 'b', 'c']],
    ['a run of one next to an exclusive call is sequential, not concurrent', ['p', 'x', 'p'], ['a', 'b', 'c']],
    ['calls on different files join the same run', ['/w/a.txt', '/w/b.txt', 'p'], ['[a b c]']],
    ['a second call on the same file starts a new run', ['/w/a.txt', '/w/a.txt'], ['a', 'b']],
    ['a file inside a directory already in the run starts a new run', ['/w/src', '/w/src/x.ts'], ['a', 'b']],
    ['a directory holding a file already in the run starts a new run', ['/w/src/x.ts', '/w/src'], ['a', 'b']],
    ['a sibling whose name only shares a prefix does not overlap', ['/w/src', '/w/src2/x.ts'], ['[a b]']],
    ['the new run keeps the calls that follow', ['/w/a', 'p', '/w/a', '/w/b', 'p'], ['[a b]', '[c d e]']],
    ['an exclusive call clears reserved paths, yet overlaps after it still split', ['/w/a', 'x', '/w/a', '/w/b', '/w/a/b'], ['a', 'b', '[c d]', 'e']],
    ['the root directory overlaps every path', ['/w/a', '/', '/tmp/z'], ['a', 'b', 'c']],
    ['trailing slashes name the same directory', ['/w/dir/', '/w/dir'], ['a', 'b']],
    ['parallel calls never reserve paths', ['p', '/w/a', 'p', '/w/b'], ['[a b c d]']],
  ])('%s', (_description, specs, expected) => {
    expect(shape(calls(...specs))).toEqual(expected);
  });

  it('keeps the order of side effects: flattening the batches gives the calls in the order asked', () => {
    const specs = ['p', '/w/a', '/w/a', 'x', 'p', '/', '/w/b', 'x', 'x', '/w/c/', '/w/c/d', 'p'];
    const plan = calls(...specs);
    const batches = planToolBatches(plan);
    expect(batches.flatMap((batch) => batch.calls)).toEqual(plan);
    // Every batch is either concurrent with several calls, or sequential with one.
    for (const batch of batches) expect(batch.concurrent).toBe(batch.calls.length > 1);
  });

  it('splits runs exactly where checking every pair of paths would, on many random paths', () => {
    const parts = ['', '/', 'w', 'a', 'a/', 'src', 'src2', '.', 'x.ts', '//'];
    let seed = 7;
    const pick = () => parts[(seed = (seed * 1103515245 + 12345) % 2 ** 31) % parts.length] as string;
    for (let round = 0; round < 200; round++) {
      const plan = Array.from({ length: 12 }, (_, index): ToolCallPlan => {
        const target = ['/', pick(), pick(), '/', pick(), pick()].join('').replace(/^\/?/, index % 5 === 0 ? '' : '/');
        return { id: `c${index}`, name: 'tool', summary: '', concurrency: { mode: 'path', path: target, access: index % 3 === 0 ? 'read' : 'write' } };
      });
      expect(planToolBatches(plan)).toEqual(pairwiseBatches(plan));
    }
  });

  it('puts every exclusive call in a batch of its own', () => {
    const plan = calls('p', 'x', '/w/a', 'x', 'p', 'p');
    const batches = planToolBatches(plan);
    for (const exclusive of plan.filter((c) => c.concurrency.mode === 'exclusive')) {
      const batch = batches.find((b) => b.calls.includes(exclusive))!;
      expect(batch).toEqual({ concurrent: false, calls: [exclusive] });
    }
  });
});

/** The batches of path-scoped calls as found by checking each call against every path of its run. */
function pairwiseBatches(plan: ToolCallPlan[]): { concurrent: boolean; calls: ToolCallPlan[] }[] {
  const runs: ToolCallPlan[][] = [[]];
  for (const each of plan) {
    const run = runs.at(-1) as ToolCallPlan[];
    const access = (c: ToolCallPlan) => (c.concurrency.mode === 'path' ? c.concurrency.access : undefined);
    const pathOf = (c: ToolCallPlan) => (c.concurrency.mode === 'path' ? c.concurrency.path : '');
    const clash = run.some((other) => (access(each) !== 'read' || access(other) !== 'read') && pathsOverlap(pathOf(other), pathOf(each)));
    if (clash) runs.push([each]);
    else run.push(each);
  }
  return runs.filter((run) => run.length).map((run) => ({ concurrent: run.length > 1, calls: run }));
}

describe('pathsOverlap', () => {
  it.each<[a: string, b: string, overlap: boolean]>([
    ['/w/a.txt', '/w/a.txt', true],
    ['/w/a.txt', '/w/b.txt', false],
    ['/w/src', '/w/src/deep/file.ts', true],
    ['/w/src/deep/file.ts', '/w/src', true],
    ['/w/src', '/w/src2', false],
    ['/w/src2', '/w/src', false],
    ['/', '/anything/at/all', true],
    ['/anything', '/', true],
    ['/', '/', true],
    ['///', '/etc', true],
    ['/w/dir/', '/w/dir', true],
    ['/w/dir//', '/w/dir/file', true],
    ['/w/dir/', '/w/dirt', false],
    ['relative/a', 'relative/a/b', true],
    ['relative/a', 'relative/b', false],
  ])('%s and %s overlap: %s', (a, b, overlap) => {
    expect(pathsOverlap(a, b)).toBe(overlap);
    expect(pathsOverlap(b, a)).toBe(overlap);
  });
});

describe('gatedInTheirActivities', () => {
  /** Which of the gated calls (by id) their own activities assess. */
  const inTool = (plan: ToolCallPlan[], gatedIds: string) =>
    gatedInTheirActivities(planToolBatches(plan), plan.filter((c) => gatedIds.includes(c.id))).map((c) => c.id).join(' ');

  it.each<[description: string, specs: string[], gated: string, expected: string]>([
    ['no gated call', ['p', 'x'], '', ''],
    ['a lone gated call, whatever runs beside it', ['x', 'x', 'p'], 'b', 'b'],
    ['gated calls running side by side in one batch', ['p', 'p', 'p'], 'ac', 'a c'],
    ['gated calls in separate batches are assessed together first', ['x', 'x'], 'ab', ''],
    ['one gated call in a parallel batch, another after it', ['p', 'p', 'x'], 'ac', ''],
  ])('%s', (_description, specs, gated, expected) => {
    expect(inTool(calls(...specs), gated)).toBe(expected);
  });

  it('gated calls in a batch larger than starts at once are assessed together first', () => {
    const plan = calls('p', 'p', 'p');
    const gated = plan.filter((c) => 'ac'.includes(c.id));
    expect(gatedInTheirActivities(planToolBatches(plan), gated, 3).map((c) => c.id)).toEqual(['a', 'c']);
    expect(gatedInTheirActivities(planToolBatches(plan), gated, 2)).toEqual([]);
  });
});
