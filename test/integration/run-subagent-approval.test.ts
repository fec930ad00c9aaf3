// `run` shows when a sub-agent waits for an approval, and how to answer it: only the root's own
// questions used to be shown, so a sub-agent's wait looked like a hang at the terminal.
import { mkdirSync, existsSync } from 'node:fs';
import path from 'node:path';
import { CliTestbed, requireBuild } from '../helpers/cli';

requireBuild();

const testbed = new CliTestbed();
afterEach(() => testbed.cleanup());

test("a sub-agent's question shows in run's output, with the commands that answer it", async () => {
  const sandbox = await testbed.sandbox({
    script: {
      agents: [{ match: 'clean junk', turns: [{ tool_calls: [{ name: 'terminal', arguments: { command: 'rm -rf junk' } }] }, { content: 'cleaned' }] }],
      turns: [{ tool_calls: [{ name: 'delegate_task', arguments: { goal: 'clean junk' } }] }, { content: 'parent done' }],
    },
  });
  mkdirSync(path.join(sandbox.cwd, 'junk'));
  const run = testbed.cli(sandbox, ['run', '--session-id', 'tree', '--cwd', sandbox.cwd, 'tidy up']);
  await run.waitForOutput(/sub-agent tree-sa0 waits for approval: .*rm -rf junk\n.*hermes-temporal approve tree /, 60_000);
  expect(run.stdout).toMatch(/see it with: hermes-temporal pending tree /);
  const approve = await testbed.runCli(sandbox, ['approve', 'tree', 'ap-1'], 30_000);
  expect(approve.code).toBe(0);
  expect((await run.waitForExit(60_000)).code).toBe(0);
  expect(existsSync(path.join(sandbox.cwd, 'junk'))).toBe(false);
}, 150_000);
