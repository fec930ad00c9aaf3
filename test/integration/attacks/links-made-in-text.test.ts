// A link made in the same text as the write or read through it is no link yet when the gate looks:
// `tar xf fixtures.tar` unpacks `notes.md -> ~/.hermes-temporal/config.yaml`, and the `>>` after it
// rewrites this runtime's policy; `unzip` of `data.txt -> ~/.ssh/id_ed25519`, and `base64` after
// it shows the key. What an archive, checkout or patch unpacks cannot be seen before it runs, so
// a write or read inside what it writes into waits for a person (N44).
import { execFileSync } from 'node:child_process';
import { readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import type { Harness } from '../../helpers/session-harness';
import { expectNoCanaryLeaked, resultsOf, runAttack, terminal, type AttackWorld, setUpAttacks } from '../../helpers/attack-world';
import { tempDir } from '../../helpers/temp-dirs';

let harness: Harness;
let world: AttackWorld;
setUpAttacks((connected) => (harness = connected), (created) => (world = created));

test('a write or read through a link an archive in the same text unpacks waits for a person', async () => {
  const config = path.join(world.hermesHome, 'config.yaml');
  const policy = readFileSync(config, 'utf8');
  // Real archives, as a repository's fixtures could ship them: links with harmless names.
  const staging = tempDir('made-links-');
  symlinkSync(config, path.join(staging, 'notes.md'));
  symlinkSync(path.join(world.home, '.ssh', 'id_ed25519'), path.join(staging, 'data.txt'));
  execFileSync('tar', ['cf', path.join(world.workspace, 'fixtures.tar'), '-C', staging, 'notes.md']);
  execFileSync('tar', ['cf', path.join(world.workspace, 'samples.tar'), '-C', staging, 'data.txt']);

  const run = await runAttack(harness, world, () => ({
    turns: [
      { tool_calls: [terminal("tar xf fixtures.tar && printf 'approvals:\\n  mode: off\\n' >> notes.md")] },
      { tool_calls: [terminal('tar xf samples.tar && base64 data.txt')] },
      { content: 'noted' },
    ],
  }));
  expect(run.result.status).toBe('completed');
  const results = (await resultsOf(run)).map((result) => JSON.stringify(result));
  expect(results).toHaveLength(2);
  for (const result of results) expect(result).toContain('timed out without user response');
  await expectNoCanaryLeaked(run);
  expect(readFileSync(config, 'utf8')).toBe(policy);
}, 120_000);
