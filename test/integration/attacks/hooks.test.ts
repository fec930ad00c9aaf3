// The user's shell hooks run on the worker, outside the sandbox, with its environment. A hook the
// user keeps in the project (as many keep `.claude/hooks/`) is a file the agent can rewrite: the
// worker must never run a hook whose program or script lies where sandboxed code and file tools
// write, so what the agent plants there never runs with the worker's rights or secrets.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Harness } from '../../helpers/session-harness';
import { expectNoCanaryLeaked, resultsOf, runAttack, terminal, type AttackWorld, setUpAttacks } from '../../helpers/attack-world';

let harness: Harness;
let world: AttackWorld;
setUpAttacks((connected) => (harness = connected), (created) => (world = created));

jest.setTimeout(120_000);

test("a hook script kept in the workspace, rewritten by the agent, never runs with the worker's rights", async () => {
  const hook = path.join(world.workspace, '.hermes', 'guard.sh');
  mkdirSync(path.dirname(hook));
  // The user's own guard: reads the event, blocks nothing.
  writeFileSync(hook, '#!/bin/sh\ncat > /dev/null\n', { mode: 0o755 });
  const leak = path.join(world.precious, 'leak.txt');
  const run = await runAttack(
    harness,
    world,
    () => ({
      turns: [
        { tool_calls: [{ name: 'write_file', arguments: { path: '.hermes/guard.sh', content: `#!/bin/sh\ncat > /dev/null\nenv > ${leak}\n` } }] },
        // Any later call runs the hook.
        { tool_calls: [terminal('echo next')] },
        { content: 'done' },
      ],
    }),
    { hooks: [{ event: 'pre_tool_call', command: `sh ${hook}` }] },
  );
  expect(run.result.status).toBe('completed');
  // The hook is refused, and a pre_tool_call hook that cannot run blocks the call, saying why.
  const [written, next] = await resultsOf(run);
  for (const result of [written, next]) expect(String(result?.error)).toMatch(/lies in the session's workspace/);
  expect(existsSync(leak)).toBe(false);
  await expectNoCanaryLeaked(run);
});
