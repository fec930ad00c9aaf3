// Watching a delegation tree from the command line: `run` shows sub-agents' progress under the
// parent (and as events with --json), `sessions` and `show` draw the tree.
import { CliTestbed, jsonLines, requireBuild } from '../helpers/cli';
import { uniqueName } from '../helpers/session-harness';

requireBuild();

const testbed = new CliTestbed();
afterEach(() => testbed.cleanup());

const child = (match: string) => ({
  match,
  turns: [{ tool_calls: [{ name: 'terminal', arguments: { command: `sleep 1; echo ${match}` } }] }, { content: `${match} finished` }],
});

const script = {
  turns: [
    { tool_calls: [{ name: 'delegate_task', arguments: { tasks: [{ goal: 'alpha: say alpha' }, { goal: 'beta: say beta' }] } }] },
    ...Array.from({ length: 3 }, () => ({ content: 'both sub-agents reported' })),
  ],
  agents: [child('alpha'), child('beta')],
};

test('run --json emits child_started and child_finished, and the sub-agents\' own tool events with their session and depth', async () => {
  const sandbox = await testbed.sandbox({ script });
  const sessionId = uniqueName('fan');
  const result = await testbed.runCli(sandbox, ['run', '--json', '--session-id', sessionId, 'root: fan out to two'], 60_000);
  expect(result.code).toBe(0);
  const events = jsonLines(result.stdout);
  const started = events.filter((event) => event.type === 'child_started');
  const finished = events.filter((event) => event.type === 'child_finished');
  expect(started.map((event) => event.child_session_id).sort()).toEqual([`${sessionId}-sa0`, `${sessionId}-sa1`]);
  expect(finished.map((event) => event.ok)).toEqual([true, true]);
  expect(finished.map((event) => String(event.preview)).sort()).toEqual(['completed: alpha finished', 'completed: beta finished']);
  const childTools = events.filter((event) => event.type === 'tool_finished' && event.session_id);
  expect(childTools.map((event) => [event.session_id, event.depth, event.name]).sort()).toEqual([
    [`${sessionId}-sa0`, 1, 'terminal'],
    [`${sessionId}-sa1`, 1, 'terminal'],
  ]);
  expect(events.at(-1)).toMatchObject({ type: 'final', status: 'completed', answer: 'both sub-agents reported' });

  // `sessions` lists each sub-agent under its parent; `show` names the parent and the children.
  const listed = await testbed.runCli(sandbox, ['sessions']);
  const lines = listed.stdout.split('\n');
  const rootLine = lines.findIndex((line) => line.startsWith(sessionId));
  expect(lines.slice(rootLine + 1, rootLine + 3).map((line) => line.split(/\s+/).slice(0, 2).join(' ')).sort()).toEqual([`└ ${sessionId}-sa0`, `└ ${sessionId}-sa1`]);
  const shown = await testbed.runCli(sandbox, ['show', `${sessionId}-sa1`]);
  expect(shown.stdout).toContain(`sub-agent of ${sessionId} (depth 1)`);
  const root = await testbed.runCli(sandbox, ['show', sessionId, '--json']);
  expect((JSON.parse(root.stdout) as { subagents: { sessionId: string; depth: number; status: string }[] }).subagents.map((entry) => [entry.sessionId, entry.depth, entry.status]).sort()).toEqual([
    [`${sessionId}-sa0`, 1, 'completed'],
    [`${sessionId}-sa1`, 1, 'completed'],
  ]);
});

test('run shows sub-agents\' tool lines indented under the parent', async () => {
  const sandbox = await testbed.sandbox({ script });
  const result = await testbed.runCli(sandbox, ['run', 'root: fan out for people'], 60_000);
  expect(result.code).toBe(0);
  expect(result.stdout).toMatch(/\n {2}🔀 sub-agent \S+-sa0 started: alpha: say alpha/);
  expect(result.stdout).toMatch(/\n {6}💻 terminal: sleep 1; echo (alpha|beta)/);
  // Each sub-agent's own lines come before the line that says it finished.
  expect(result.stdout.indexOf('"output":"beta"')).toBeLessThan(result.stdout.indexOf('completed: beta finished'));
  expect(result.stdout).toMatch(/\n {2}✓ sub-agent \S+-sa1 \d+\.\ds → completed: beta finished/);
});
