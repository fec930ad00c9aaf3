// A program the detector knows only reads (ripgrep) is told by an option to run another one for
// each file it searches: `rg --pre rm x .` deletes every file rg visits. Judged as only reading,
// the call took no checkpoint before it (and could run beside others): the user's work, in no
// checkpoint yet, was gone for good. What such an option runs is judged as a command of its own.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Harness } from '../../helpers/session-harness';
import { resultsOf, rollBackToFirstCheckpoint, runAttack, terminal, type AttackWorld, setUpAttacks } from '../../helpers/attack-world';
import { testNeeding } from '../../helpers/services';

let harness: Harness;
let world: AttackWorld;
setUpAttacks((connected) => (harness = connected), (created) => (world = created));

const ripgrep = (() => {
  try {
    return execFileSync('/bin/sh', ['-c', 'command -v rg'], { encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
})();


// ripgrep is not everywhere: where it is missing, no command can use it either.
testNeeding(Boolean(ripgrep), 'ripgrep is not installed: apt-get install ripgrep', "`rg --pre rm` as a session's first command is checkpointed before it runs: the work it deletes comes back", async () => {
  mkdirSync(path.join(world.workspace, 'src'), { recursive: true });
  writeFileSync(path.join(world.workspace, 'src/thesis.md'), 'years of work\n');
  const run = await runAttack(harness, world, () => ({ turns: [{ tool_calls: [terminal('rg --pre rm -l x .; echo searched')] }, { content: 'searched' }] }));
  expect(run.result.status).toBe('completed');
  const [searched] = await resultsOf(run);
  expect(searched).toMatchObject({ output: 'searched', exit_code: 0 });
  expect(existsSync(path.join(world.workspace, 'src/thesis.md'))).toBe(false);

  rollBackToFirstCheckpoint(world, run.sessionId);
  expect(readFileSync(path.join(world.workspace, 'src/thesis.md'), 'utf8')).toBe('years of work\n');
}, 120_000);
