// An approval covers what the human saw: a session approval of a long command does not extend to
// a longer one sharing its beginning.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Harness } from '../../helpers/session-harness';
import { humanApproves, resultsOf, runAttack, terminal, type AttackWorld, setUpAttacks } from '../../helpers/attack-world';

let harness: Harness;
let world: AttackWorld;
setUpAttacks((connected) => (harness = connected), (created) => (world = created));

function plantProject(): void {
  mkdirSync(path.join(world.workspace, 'src'), { recursive: true });
  mkdirSync(path.join(world.workspace, '.git'), { recursive: true });
  writeFileSync(path.join(world.workspace, 'src', 'main.ts'), 'export {};\n');
  writeFileSync(path.join(world.workspace, '.git', 'HEAD'), 'ref: refs/heads/main\n');
}

const expectProjectIntact = () => {
  expect(existsSync(path.join(world.workspace, 'src', 'main.ts'))).toBe(true);
  expect(existsSync(path.join(world.workspace, '.git', 'HEAD'))).toBe(true);
};

test('a session approval of a long delete does not cover a longer command that shares its first 500 characters', async () => {
  plantProject();
  const long = `${'d'.repeat(250)}/${'e'.repeat(250)}`;
  const run = await runAttack(
    harness,
    world,
    () => ({
      turns: [
        { tool_calls: [terminal(`rm -rf ${long}`)] },
        { tool_calls: [terminal(`rm -rf ${long} src .git; ls -la`)] },
        { content: 'done' },
      ],
    }),
    {},
    // The human approves the first delete for the session, and nothing after it.
    humanApproves(world, 'dddd', 1, 'session'),
  );
  expect(run.result.status).toBe('completed');
  const [first, second] = await resultsOf(run);
  expect(first).toMatchObject({ exit_code: 0 });
  expect(JSON.stringify(second)).toContain('timed out without user response');
  expectProjectIntact();
});
