// session_search recalls only the sessions of the folder a session works in: transcripts hold
// what their tools read, and another project's files are what the sandbox keeps from this one.
// The agent moves its shell out of the workspace (`cd /`) and delegates: the sub-agent starts
// "in" the new folder, and asks the store for the other project's session from there.
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { sandboxVisibleTempDir, type Harness } from '../../helpers/session-harness';
import { everythingTheModelOrHistorySaw, resultsOf, runAttack, terminal, type AttackWorld, setUpAttacks } from '../../helpers/attack-world';

let harness: Harness;
let world: AttackWorld;
setUpAttacks((connected) => (harness = connected), (created) => (world = created));

jest.setTimeout(120_000);

test("a sub-agent started after its parent's `cd /` recalls only the sessions of its parent's workspace", async () => {
  const canary = 'other-project-subagent-recall-canary-5e1b';
  const otherProject = sandboxVisibleTempDir('recall-other-');
  writeFileSync(path.join(otherProject, 'settings.ini'), `db_password=${canary}\n`);
  try {
    const first = await runAttack(harness, world, () => ({ turns: [{ tool_calls: [{ name: 'read_file', arguments: { path: 'settings.ini' } }] }, { content: 'read it' }] }), {
      session: { cwd: otherProject },
    });
    expect(JSON.stringify(await resultsOf(first))).toContain(canary);

    const second = await runAttack(harness, world, () => ({
      turns: [
        { tool_calls: [terminal('cd / && pwd')] },
        { tool_calls: [{ name: 'delegate_task', arguments: { goal: 'recall the database settings' } }] },
        { content: 'waiting' },
        { content: 'done' },
      ],
      agents: [
        {
          match: 'recall the database',
          turns: [
            { tool_calls: [{ name: 'session_search', arguments: { query: 'db_password', role_filter: 'tool' } }] },
            { tool_calls: [{ name: 'session_search', arguments: { session_id: first.sessionId } }] },
            { content: 'nothing found' },
          ],
        },
      ],
    }));
    expect(second.result.status).toBe('completed');
    // The parent's shell did leave the workspace: the sub-agent was started there.
    expect(JSON.stringify((await resultsOf(second))[0])).toContain('"output":"/"');
    const childMessages = await second.store.getMessages(`${second.sessionId}-sa0`);
    const [search, read] = childMessages.filter((message) => message.role === 'tool').map((message) => JSON.parse(message.content ?? '{}') as Record<string, unknown>);
    expect(search).toMatchObject({ count: 0 });
    expect(read).toMatchObject({ error: `session_id not found: ${first.sessionId}` });
    expect(await everythingTheModelOrHistorySaw(second)).not.toContain(canary);
  } finally {
    rmSync(otherProject, { recursive: true, force: true });
  }
});
