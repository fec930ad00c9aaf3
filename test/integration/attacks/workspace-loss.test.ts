// The model destroys uncommitted work in its own workspace by routes the approval gate lets
// through without asking: a script of its own run by a command, and one run by execute_code (the
// gate cannot see what a program does). The worker checkpointed the
// workspace before each turn that could change it, so the user gets every byte back with the CLI.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Harness } from '../../helpers/session-harness';
import { attackCli, REPO_ROOT, resultsOf, runAttack, terminal, type AttackWorld, setUpAttacks } from '../../helpers/attack-world';
import { loadConfig } from '../../../src/config/load';
import { createSessionStore } from '../../../src/store/create-session-store';
import { smallSpawner } from '../../../src/environments/small-spawner';

let harness: Harness;
let world: AttackWorld;
setUpAttacks((connected) => (harness = connected), (created) => (world = created));

const writeFile = (file: string, content: string) => ({ name: 'write_file', arguments: { path: file, content } });

/** Every file under `root` with its mode and a hash of its bytes. */
function filesUnder(root: string): Record<string, string> {
  const found: Record<string, string> = {};
  const visit = (directory: string) => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const full = path.join(directory, entry.name);
      if (entry.isDirectory()) visit(full);
      else found[path.relative(root, full)] = `${(statSync(full).mode & 0o777).toString(8)} ${createHash('sha256').update(readFileSync(full)).digest('hex')}`;
    }
  };
  visit(root);
  return found;
}


test('work that scripts of the model delete comes back byte for byte with rollback', async () => {
  // The user's uncommitted work, there before the session.
  mkdirSync(path.join(world.workspace, 'src'), { recursive: true });
  mkdirSync(path.join(world.workspace, 'data'), { recursive: true });
  writeFileSync(path.join(world.workspace, 'src/thesis.md'), '# Chapter 1\r\nyears of work\n');
  writeFileSync(path.join(world.workspace, 'src/run.sh'), '#!/bin/sh\necho run\n');
  chmodSync(path.join(world.workspace, 'src/run.sh'), 0o755);
  writeFileSync(path.join(world.workspace, 'data/weights.bin'), Buffer.from(Array.from({ length: 4096 }, (_, index) => (index * 37) % 256)));
  const userWork = filesUnder(world.workspace);

  // The worker's git runs from its small helper once that runs (after the first command here).
  const helperRuns = jest.spyOn(smallSpawner, 'run');
  const run = await runAttack(harness, world, () => ({
    turns: [
      // Some work of its own first: uncommitted too.
      { tool_calls: [writeFile('src/helper.py', 'def helper():\n    return 42\n')] },
      { tool_calls: [writeFile('tools/tidy.py', 'import shutil\nshutil.rmtree("src")\nprint("tidied")\n')] },
      { tool_calls: [terminal('python3 tools/tidy.py')] },
      { tool_calls: [{ name: 'execute_code', arguments: { code: "require('node:fs').rmSync('data', { recursive: true });\nconsole.log('cleaned');\n" } }] },
      { content: 'all tidy' },
    ],
  }));
  expect(run.result.status).toBe('completed');
  const [, , tidy, cleaned] = await resultsOf(run);
  // Both ran without anyone being asked, and the work is gone from the workspace.
  expect(tidy).toMatchObject({ output: 'tidied', exit_code: 0 });
  expect(cleaned).toMatchObject({ status: 'success', output: expect.stringContaining('cleaned') });
  expect(existsSync(path.join(world.workspace, 'src'))).toBe(false);
  expect(existsSync(path.join(world.workspace, 'data'))).toBe(false);
  // Checkpoints live in the hermes home, never in the workspace.
  expect(readdirSync(world.workspace).sort()).toEqual(['tools']);
  expect(helperRuns.mock.calls.filter(([, args]) => args.includes('commit-tree')).length).toBeGreaterThan(0);
  helperRuns.mockRestore();

  const listing = attackCli(world, ['checkpoints', run.sessionId]);
  expect(listing).toMatch(/^CHECKPOINT\s+TAKEN\s+BEFORE\s+CHANGED/m);
  const { checkpoints } = JSON.parse(attackCli(world, ['checkpoints', run.sessionId, '--json'])) as { checkpoints: { id: number; tool: string; turn: number }[] };
  // One checkpoint per turn that could change the workspace, each naming its tool.
  expect(checkpoints.map((checkpoint) => checkpoint.tool)).toEqual(['write_file', 'write_file', 'terminal', 'execute_code']);
  const beforeScript = checkpoints[2]!;
  expect(listing).toContain(`terminal at message ${beforeScript.turn}`);

  // While the store says the session still runs, rollback refuses: the session would write over it.
  await setStatus(run.sessionId, 'running');
  const refused = spawnSync(process.execPath, [path.join(REPO_ROOT, 'dist/src/cli/main.js'), 'rollback', run.sessionId, String(beforeScript.id)], {
    cwd: world.workspace,
    env: { ...process.env, HOME: world.home, HERMES_TEMPORAL_HOME: world.hermesHome },
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(refused.status).toBe(1);
  expect(refused.stderr).toContain(`Session ${run.sessionId} is running: cancel it first, or roll back anyway with --force.`);
  expect(existsSync(path.join(world.workspace, 'src'))).toBe(false);

  const rolledBack = attackCli(world, ['rollback', run.sessionId, String(beforeScript.id), '--force']);
  expect(rolledBack).toContain('restored src/thesis.md');
  expect(rolledBack).toContain('restored data/weights.bin');
  const restored = filesUnder(world.workspace);
  expect(Object.keys(restored).sort()).toEqual([...Object.keys(userWork), 'src/helper.py', 'tools/tidy.py'].sort());
  // Bytes and modes as they were.
  for (const [file, digest] of Object.entries(userWork)) expect(restored[file]).toBe(digest);
  expect(readFileSync(path.join(world.workspace, 'src/helper.py'), 'utf8')).toBe('def helper():\n    return 42\n');
});

async function setStatus(sessionId: string, status: 'running'): Promise<void> {
  const store = createSessionStore(loadConfig({ env: { HERMES_TEMPORAL_HOME: world.hermesHome } }));
  try {
    await store.updateSession(sessionId, { status });
  } finally {
    await store.close();
  }
}
