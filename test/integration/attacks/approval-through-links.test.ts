// A session approval of a delete covers the folder it named as it was: the same words once the
// name is a link to the work (`rm -rf data/` empties what `data` leads to) are asked again,
// whether the link was made by an earlier call or earlier in the same text.
import { existsSync, lstatSync, mkdirSync, writeFileSync } from 'node:fs';
import { decideSigned } from '../../helpers/approver';
import { pendingApprovalsQuery } from '../../../src/approval-signals/definitions';
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

test('a delete approved while its folder was real is refused if a job made the folder a link before it starts', async () => {
  const work = plant();
  const go = path.join(world.workspace, 'go');
  const data = path.join(world.workspace, 'data');
  const run = await runAttack(
    harness,
    world,
    () => ({
      turns: [
        // A job that swaps data for a link to src once told to: each of its commands harmless.
        { tool_calls: [terminal('while [ ! -e go ]; do sleep 0.05; done; rm -f data/scratch.csv; rmdir data && ln -s src data', { background: true })] },
        { tool_calls: [terminal('rm -rf data/')] },
        { content: 'done' },
      ],
    }),
    {},
    // The person approves the delete of the real data folder they see; the swap happens meanwhile.
    async (handle, finished) => {
      const deadline = Date.now() + 30_000;
      while (!finished() && Date.now() < deadline) {
        const [pending] = await handle.query(pendingApprovalsQuery).catch(() => []);
        if (pending?.command.includes('rm -rf data/')) {
          writeFileSync(go, '');
          while (Date.now() < deadline && !lstatSync(data, { throwIfNoEntry: false })?.isSymbolicLink()) await new Promise((resolve) => setTimeout(resolve, 50));
          await decideSigned(handle, { home: world.hermesHome }, { approvalId: pending.approvalId, choice: 'once' });
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
  );
  expect(run.result.status).toBe('completed');
  const [, deleted] = (await resultsOf(run)).map((result) => JSON.stringify(result));
  expect(deleted).toContain('BLOCKED');
  expect(existsSync(work)).toBe(true);
});
