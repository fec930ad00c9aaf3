import { ApplicationFailure } from '@temporalio/common';
import { boundTurnPlans, MAX_TOOL_CALL_ID_CHARS, MAX_TOOL_CALLS_PER_TURN, TURN_PLAN_BUDGET_BYTES, uniqueToolCallIds } from '../../../src/activities/turn-plan-budget';
import type { ToolCallPlan } from '../../../src/workflows/session-types';

const plan = (id: string, name = 'read_file', extra: Partial<ToolCallPlan> = {}): ToolCallPlan => ({ id, name, summary: `${name}: x`, concurrency: { mode: 'parallel' }, ...extra });
const known = (name: string) => name === 'read_file' || name === 'todo';
const errorOf = (bounded: ToolCallPlan) => (bounded.workflowCall && 'errorResult' in bounded.workflowCall ? (JSON.parse(bounded.workflowCall.errorResult) as { error: string }).error : undefined);

describe('the ids a reply is stored under', () => {
  test("keep the model's own ids when each is usable", () => {
    expect(uniqueToolCallIds(['call_a', 'call_b'], 7)).toEqual(['call_a', 'call_b']);
  });

  test('replace a missing, non-text, over-long or repeated id, with ids no other call of the reply has', () => {
    const ids = uniqueToolCallIds(['', 42, 'i'.repeat(MAX_TOOL_CALL_ID_CHARS + 1), 'same', 'same', 'call_7_0'], 7);
    expect(ids).toEqual(['call_7_0_1', 'call_7_1', 'call_7_2', 'same', 'call_7_4', 'call_7_0']);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('the plans a reply puts into history', () => {
  test('an unknown tool name of a megabyte is answered with a clipped quote; a known tool keeps its name', () => {
    const [unknown, knownCall] = boundTurnPlans([plan('a', 'x'.repeat(1_000_000)), plan('b')], known);
    expect(unknown?.name.length).toBeLessThanOrEqual(65);
    expect(errorOf(unknown!)).toMatch(/^Unknown tool: x+… \(a name of 1000000 characters\)$/);
    expect(unknown?.concurrency).toEqual({ mode: 'exclusive' });
    expect(knownCall).toEqual(plan('b'));
  });

  test('calls past the budget are answered "not run", in order, and the whole stays within it', () => {
    const big = (id: string) => plan(id, 'todo', { workflowCall: { arguments: { text: 'y'.repeat(300_000) } } });
    const plans = Array.from({ length: 10 }, (_, index) => big(`c${index}`));
    const bounded = boundTurnPlans(plans, known);
    const ran = bounded.filter((call) => call.workflowCall && 'arguments' in call.workflowCall);
    expect(ran.map((call) => call.id)).toEqual(['c0', 'c1']);
    expect(bounded.slice(2).every((call) => errorOf(call)?.startsWith('Not run: this reply'))).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(bounded))).toBeLessThan(TURN_PLAN_BUDGET_BYTES + 10_000);
  });

  test('a reply with more calls than a turn can schedule fails clearly and finally', () => {
    const plans = Array.from({ length: MAX_TOOL_CALLS_PER_TURN + 1 }, (_, index) => plan(`c${index}`));
    let failure: unknown;
    try {
      boundTurnPlans(plans, known);
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: 'Hermes.Model.ReplyTooLarge', nonRetryable: true, message: expect.stringMatching(/2049 tool calls; at most 2048/) });
  });

  test('the most calls one turn may hold fit in history even when none fits the budget', () => {
    const plans = Array.from({ length: MAX_TOOL_CALLS_PER_TURN }, (_, index) => plan('i'.repeat(MAX_TOOL_CALL_ID_CHARS - 6) + String(index).padStart(6, '0'), 'y'.repeat(10_000)));
    expect(Buffer.byteLength(JSON.stringify(boundTurnPlans(plans, known)))).toBeLessThan(1_900_000);
  });
});
