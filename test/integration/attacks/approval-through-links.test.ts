// A session approval of a delete covers the folder it named as it was: the same words once the
// name is a link to the work (`rm -rf data/` empties what `data` leads to) are asked again,
// whether the link was made by an earlier call or earlier in the same text.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Harness } from '../../helpers/session-harness';
import { humanApproves, resultsOf, runAttack, terminal, type AttackWorld, setUpAttacks } from '../../helpers/attack-world';

let harness: Harness;
let world: AttackWorld;
setUpAttacks((connected) => (harness = connected), (created) => (world = created));

function plant(): string {
  mkdirSync(path.join(world.workspace, 'src'), { recursive: true });
  mkdirSync(path.join(world.workspace, 'data'), { recursive: true });
  writeFileSync(path.join(world.workspace, 'data', 'scratch.csv'), '1,2\n');
  const work = path.join(world.workspace, 'src', 'main.ts');
  writeFileSync(work, 'export {};\n');
  return work;
}

test('rm -rf data/ approved for the session is asked again once data is a link to src', async () => {
  const work = plant();
  const run = await runAttack(
    harness,
    world,
    () => ({
      turns: [
        { tool_calls: [terminal('rm -rf data/')] },
        { tool_calls: [terminal('ln -s src data')] },
        { tool_calls: [terminal('rm -rf data/')] },
        { tool_calls: [terminal('rm -f data; ln -s src data; rm -rf data/')] },
        { content: 'done' },
      ],
    }),
    {},
    humanApproves(world, 'rm -rf data/', 1, 'session'),
  );
  expect(run.result.status).toBe('completed');
  const [first, link, again, compound] = (await resultsOf(run)).map((result) => JSON.stringify(result));
  expect(first).toContain('"exit_code":0');
  expect(link).toContain('"exit_code":0');
  expect(again).toContain('timed out without user response');
  expect(compound).toContain('timed out without user response');
  expect(existsSync(work)).toBe(true);
});

test('rm -rf data/ approved for the session is asked again after a link is made earlier in the same command', async () => {
  const work = plant();
  const run = await runAttack(
    harness,
    world,
    () => ({
      turns: [
        { tool_calls: [terminal('rm -rf data/')] },
        // When the gate looks, data does not exist: the link is made after it looked.
        { tool_calls: [terminal('ln -s src data && ls && rm -rf data/')] },
        { content: 'done' },
      ],
    }),
    {},
    humanApproves(world, 'rm -rf data/', 1, 'session'),
  );
  expect(run.result.status).toBe('completed');
  const [first, chained] = (await resultsOf(run)).map((result) => JSON.stringify(result));
  expect(first).toContain('"exit_code":0');
  expect(chained).toContain('timed out without user response');
  expect(existsSync(work)).toBe(true);
});
