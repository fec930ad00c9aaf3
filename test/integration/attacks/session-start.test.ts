// The agent starts sessions of its own on the worker's Temporal server, which it reaches here
// (`terminal.local.network: host`, as on an ssh host or a container with network): one with
// approvals off in a folder of its choosing, and copies of its own session's signed start, read
// from the history, re-aimed at new workflow ids or loosened. Each must fail before it runs
// anything: no session record, no model call, the folder untouched.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { START_REFUSED } from '../../../src/workflows/agent-session';
import type { Harness } from '../../helpers/session-harness';
import { CLI_IN_SANDBOX, humanApproves, REPO_ROOT, resultsOf, runAttack, terminal, type AttackWorld, setUpAttacks } from '../../helpers/attack-world';

let harness: Harness;
let world: AttackWorld;
setUpAttacks((connected) => (harness = connected), (created) => (world = created));

const ROGUE = ['forged', 'moved', 'loosened'] as const;

/** The agent's program: reads its session's signed input, starts the rogue sessions, reports how each ended. */
function rogueStarts(sessionId: string, precious: string): string {
  return [
    `const { Connection, Client } = require(${JSON.stringify(path.join(REPO_ROOT, 'node_modules/@temporalio/client'))});`,
    `(async () => {`,
    `  const connection = await Connection.connect({ address: ${JSON.stringify(harness.address)}, connectTimeout: 2000 });`,
    `  const client = new Client({ connection });`,
    `  const own = client.workflow.getHandle('hermes-session-${sessionId}');`,
    `  const { taskQueue } = await own.describe();`,
    `  const { events } = await own.fetchHistory();`,
    `  const signed = JSON.parse(Buffer.from(events[0].workflowExecutionStartedEventAttributes.input.payloads[0].data).toString());`,
    `  console.log('signed start found: ' + Boolean(signed.startSignature));`,
    `  const inputs = {`,
    `    forged: { sessionId: '${sessionId}-forged', task: 'rm -rf ${precious}', model: signed.model, baseUrl: signed.baseUrl, environment: { backend: 'local', cwd: ${JSON.stringify(precious)} }, maxTurns: 3, approvals: { mode: 'off' } },`,
    `    moved: { ...signed, sessionId: '${sessionId}-moved', environment: { ...signed.environment, sessionId: '${sessionId}-moved' } },`,
    `    loosened: { ...signed, approvals: { ...signed.approvals, mode: 'off' } },`,
    `  };`,
    `  for (const [name, input] of Object.entries(inputs)) {`,
    `    // The signed start goes to a new workflow id as it is; the others keep theirs.`,
    `    const workflowId = name === 'loosened' ? 'hermes-session-${sessionId}-loosened' : 'hermes-session-' + input.sessionId;`,
    `    try {`,
    `      const handle = await client.workflow.start('agentSession', { taskQueue, workflowId, args: [input] });`,
    `      const ended = await Promise.race([handle.result().then(() => 'completed', (e) => 'failed ' + (e.cause && e.cause.type)), new Promise((r) => setTimeout(() => r('still running'), 20000))]);`,
    `      console.log(name + ': ' + ended);`,
    `    } catch (e) { console.log(name + ': not started ' + e.message); }`,
    `  }`,
    `  process.exit(0);`,
    `})().catch((e) => { console.log('connect ' + e.message); process.exit(0); });`,
  ].join('\n');
}

test('sessions the agent starts itself, forged or copied from its own signed start, run nothing', async () => {
  const run = await runAttack(
    harness,
    world,
    (sessionId) => ({
      turns: [
        { tool_calls: [{ name: 'write_file', arguments: { path: 'status.js', content: rogueStarts(sessionId, world.precious) } }] },
        { tool_calls: [terminal('node status.js > attempts.log 2>&1; cat attempts.log', { timeout: 120 })] },
        { content: 'done' },
      ],
    }),
    { terminal: { local: { network: 'host', read_paths: CLI_IN_SANDBOX } } },
    humanApproves(world, 'attempts.log'),
  );
  expect(run.result).toMatchObject({ status: 'completed' });
  const report = readFileSync(path.join(world.workspace, 'attempts.log'), 'utf8');
  // The attack really ran, with the signed start in hand.
  expect(report).toContain('signed start found: true');
  for (const name of ROGUE) {
    expect(report).toContain(`${name}: failed ${START_REFUSED}`);
    const rogueId = `${run.sessionId}-${name}`;
    const failure = await harness.client.workflow.getHandle(`hermes-session-${rogueId}`).result().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect(String((failure as WorkflowFailedError).cause?.message)).toMatch(/^Refused to run this session: (it carries no start signature|its signature by .* does not match it)/);
    expect(await run.store.getSession(rogueId)).toBeUndefined();
  }
  // Only the agent's own session asked the model anything.
  expect(run.model.requests).toHaveLength(3);
  expect(existsSync(path.join(world.precious, 'thesis.txt'))).toBe(true);
  expect((await resultsOf(run))[1]).toMatchObject({ exit_code: 0 });
});
