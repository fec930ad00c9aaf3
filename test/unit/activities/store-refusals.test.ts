// The refusals of many calls, written by one activity: each through executeTool (which runs
// nothing for a refusal), in order; a call that was not refused is never run this way.
import { createStoreRefusalsActivity } from '../../../src/activities/execute-tool';
import { REFUSALS_STORED_TOGETHER, type ExecuteToolInput, type ToolOutcome } from '../../../src/workflows/session-types';

const input = (seq: number, gate: ExecuteToolInput['gate']): ExecuteToolInput => ({
  sessionId: 's',
  seq,
  assistantSeq: 1,
  toolCallId: `c${seq}`,
  name: 'terminal',
  environment: { backend: 'local', cwd: '/tmp', sessionId: 's' },
  ...(gate ? { gate } : {}),
});
const refused = { approved: false as const, message: 'Not approved' };

test('each refused call goes through executeTool, in order, and its outcome comes back in its place', async () => {
  const seen: number[] = [];
  const storeRefusals = createStoreRefusalsActivity(async (each) => {
    seen.push(each.seq);
    return { seq: each.seq, ok: false, preview: each.gate?.approved === false ? each.gate.message : '', resultChars: 10 } satisfies ToolOutcome;
  });
  const outcomes = await storeRefusals([input(3, refused), input(4, refused), input(5, refused)]);
  expect(seen).toEqual([3, 4, 5]);
  expect(outcomes.map((outcome) => [outcome.seq, outcome.preview])).toEqual([
    [3, 'Not approved'],
    [4, 'Not approved'],
    [5, 'Not approved'],
  ]);
});

test('a call the gate allowed, or one it never judged, is refused before anything is written; so is too long a list', async () => {
  const executeTool = jest.fn(async (each: ExecuteToolInput) => ({ seq: each.seq, ok: true, preview: '', resultChars: 0 }));
  const storeRefusals = createStoreRefusalsActivity(executeTool);
  await expect(storeRefusals([input(3, refused), input(4, { approved: true })])).rejects.toThrow(/each refused by the gate/);
  await expect(storeRefusals([input(3, refused), input(4, undefined)])).rejects.toThrow(/each refused by the gate/);
  await expect(storeRefusals(Array.from({ length: REFUSALS_STORED_TOGETHER + 1 }, (_, index) => input(index, refused)))).rejects.toThrow(/at most/);
  expect(executeTool).not.toHaveBeenCalled();
});
