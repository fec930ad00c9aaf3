// The model grows session state turn by turn: state that lives in the workflow (the plan) travels
// in every call's result and in each continue-as-new, so it must stop growing before Temporal's
// payload limit, with an error the model can act on, and the session must go on.
import { resultsOf, runAttack, terminal, type AttackWorld, setUpAttacks } from '../../helpers/attack-world';
import type { Harness } from '../../helpers/session-harness';

let harness: Harness;
let world: AttackWorld;
setUpAttacks((connected) => (harness = connected), (created) => (world = created));

jest.setTimeout(120_000);

test('a plan grown turn by turn past what history can carry: the growing call is refused, the plan kept, the session goes on', async () => {
  // Each item is within the plan's own limits (4000 characters); ten of them are 120 KB as UTF-8.
  // Before, the plan outgrew Temporal's 2 MB payload limit after ~18 turns and the session hung.
  const growTurn = (turn: number) => ({
    tool_calls: [{ name: 'todo', arguments: { merge: true, todos: Array.from({ length: 10 }, (_, index) => ({ id: `${turn}.${index}`, content: '漢'.repeat(4000), status: 'pending' })) } }],
  });
  const run = await runAttack(harness, world, () => ({
    turns: [...Array.from({ length: 20 }, (_, turn) => growTurn(turn)), { tool_calls: [{ name: 'todo', arguments: {} }, terminal('echo alive')] }, { content: 'done' }],
  }), {}, undefined, { limits: { turnsPerRun: 8 } });
  expect(run.result).toMatchObject({ status: 'completed', toolCalls: 22 });
  const results = await resultsOf(run);
  const totals = results.slice(0, 20).map((result) => (result.summary as { total?: number } | undefined)?.total);
  const kept = totals.filter((total) => total !== undefined);
  // The plan grew until the bound, then every further growth was refused with the reason.
  expect(kept).toEqual(Array.from({ length: kept.length }, (_, index) => (index + 1) * 10));
  expect(kept.length).toBeGreaterThanOrEqual(3);
  for (const refused of results.slice(kept.length, 20)) expect(String(refused.error)).toMatch(/^The plan would take \d+ characters; at most \d+ are kept\..*The plan is unchanged\.$/);
  // Across continue-as-new (every 8 turns here), the plan is the last one accepted.
  expect((results[20]?.summary as { total?: number }).total).toBe(kept.length * 10);
  expect(results[21]).toMatchObject({ output: 'alive', exit_code: 0 });
});
