// Which calls of a turn only write the gate's refusal, together: those run alone, one after
// another, whose gate has already refused them; never one still waiting, allowed, or run in a batch.
import type { ApprovalGateResult } from '../../../src/approval-signals/approval-types';
import { RefusedCalls } from '../../../src/workflows/refused-calls';
import { REFUSALS_STORED_TOGETHER, type ToolCallPlan } from '../../../src/workflows/session-types';
import { planToolBatches } from '../../../src/workflows/tool-batches';

const refusal: ApprovalGateResult = { approved: false, message: 'Not approved: the approval timed out' };
const allowed: ApprovalGateResult = { approved: true };

function call(id: string, mode: 'exclusive' | 'parallel' = 'exclusive', extra: Partial<ToolCallPlan> = {}): ToolCallPlan {
  return { id, name: 'terminal', summary: id, concurrency: { mode }, ...extra };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));
const ids = (calls: ToolCallPlan[]) => calls.map((each) => each.id).join(' ');

test('refused calls run alone one after another are taken together; the run stops at one allowed, waiting, or not gated', async () => {
  const plan = [call('a'), call('b'), call('c'), call('d'), call('e'), call('f')];
  const gates = new Map<string, Promise<ApprovalGateResult> | string>([
    ['a', Promise.resolve(refusal)],
    ['b', Promise.resolve(refusal)],
    ['c', Promise.resolve(allowed)],
    ['d', Promise.resolve(refusal)],
    ['e', new Promise<ApprovalGateResult>(() => undefined)], // a person has not answered yet
  ]);
  const refused = new RefusedCalls(gates);
  await settle();
  const batches = planToolBatches(plan);
  expect(ids(refused.refusedRun(batches, 0))).toBe('a b');
  expect(ids(refused.refusedRun(batches, 2))).toBe('');
  expect(ids(refused.refusedRun(batches, 3))).toBe('d');
  expect(ids(refused.refusedRun(batches, 5))).toBe('');
  expect(refused.refusalOf(plan[0]!)).toEqual(refusal);
  expect(refused.refusalOf(plan[2]!)).toBeUndefined();
});

test('calls in a batch run side by side, MCP calls and calls the workflow runs itself are left to their own paths', async () => {
  const plan = [
    call('a'),
    call('m', 'exclusive', { mcp: { server: 's', tool: 't' } as ToolCallPlan['mcp'] }),
    call('b'),
    call('p', 'parallel'),
    call('q', 'parallel'),
  ];
  const gates = new Map(plan.map((each) => [each.id, Promise.resolve(refusal)]));
  const refused = new RefusedCalls(gates);
  await settle();
  const batches = planToolBatches(plan);
  expect(ids(refused.refusedRun(batches, 0))).toBe('a');
  expect(ids(refused.refusedRun(batches, 2))).toBe('b');
  expect(ids(refused.refusedRun(batches, 3))).toBe('');
});

test(`at most ${REFUSALS_STORED_TOGETHER} are taken at once; a gate that failed is no refusal`, async () => {
  const plan = Array.from({ length: REFUSALS_STORED_TOGETHER + 5 }, (_, index) => call(`c${index}`));
  const gates = new Map<string, Promise<ApprovalGateResult>>(plan.map((each) => [each.id, Promise.resolve(refusal)]));
  gates.set('c0', Promise.reject(new Error('cancelled')));
  const refused = new RefusedCalls(gates);
  await settle();
  const batches = planToolBatches(plan);
  expect(refused.refusedRun(batches, 0)).toEqual([]);
  expect(refused.refusedRun(batches, 1)).toHaveLength(REFUSALS_STORED_TOGETHER);
});
