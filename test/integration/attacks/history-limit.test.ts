// One reply of many execute_code calls, each script making its fifty tool calls: every inner call
// adds a signal, an activity and a workflow task to the session's history, and continue-as-new is
// only considered between turns. Past the server's history limit (51,200 events by default) the
// server terminates the workflow: no cleanup, its sub-agents and background processes orphaned,
// the store saying it still runs. This server's limits are scaled down (the ratio of the default
// error limit to the suggestion to continue as new is kept) so the attack takes seconds.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { startDevServer, type DevServer } from '../../../src/temporal/dev-server';
import { connectHarness, type Harness } from '../../helpers/session-harness';
import { resultsOf, runAttack, type AttackWorld, createAttackWorld } from '../../helpers/attack-world';

const SUGGEST_CONTINUE_AS_NEW = 300;
const HISTORY_LIMIT = SUGGEST_CONTINUE_AS_NEW * 12;

let server: DevServer;
let harness: Harness;
let world: AttackWorld;
const sharedAddress = process.env.HERMES_TEST_TEMPORAL_ADDRESS;

beforeAll(async () => {
  server = await startDevServer({
    headless: true,
    dynamicConfig: {
      'frontend.enableUpdateWorkflowExecution': true,
      'limit.historyCount.suggestContinueAsNew': SUGGEST_CONTINUE_AS_NEW,
      'limit.historyCount.warn': SUGGEST_CONTINUE_AS_NEW,
      'limit.historyCount.error': HISTORY_LIMIT,
    },
  });
  process.env.HERMES_TEST_TEMPORAL_ADDRESS = server.address;
  harness = await connectHarness();
}, 120_000);
afterAll(async () => {
  await harness?.close();
  await server?.stop();
  process.env.HERMES_TEST_TEMPORAL_ADDRESS = sharedAddress;
});
beforeEach(() => (world = createAttackWorld()));
afterEach(() => world?.restore());

jest.setTimeout(600_000);

/** A script that makes as many tool calls as a script may, all at once. */
const FIFTY_READS = "await Promise.all(Array.from({ length: 50 }, () => read_file('note.txt')));\nconsole.log('read');";

test('a reply whose scripts make thousands of tool calls does not run the session past the history limit: it continues as new', async () => {
  writeFileSync(path.join(world.workspace, 'note.txt'), 'hello\n');
  // 30 scripts of 50 calls: about 12,000 events if all ran, three times the limit.
  const scripts = Array.from({ length: 30 }, () => ({ name: 'execute_code', arguments: { code: FIFTY_READS } }));
  const run = await runAttack(harness, world, () => ({ turns: [{ tool_calls: scripts }, { tool_calls: [{ name: 'read_file', arguments: { path: 'note.txt' } }] }, { content: 'done' }] }));
  // Without a bound the server terminated the workflow and result() threw before this line.
  expect(run.result).toMatchObject({ status: 'completed' });
  const results = await resultsOf(run);
  const refused = results.filter((result) => /^Not run: this session's history/.test(String(result.error)));
  expect(refused.length).toBeGreaterThan(0);
  // The turn after went on in a new run.
  expect(results.at(-1)).toMatchObject({ content: expect.stringContaining('hello') });
  // The run the attack filled ended by continuing as new, within the limit.
  const lastStart = (await run.handle.fetchHistory()).events?.[0]?.workflowExecutionStartedEventAttributes;
  const firstRun = harness.client.workflow.getHandle(run.handle.workflowId, lastStart?.continuedExecutionRunId ?? undefined);
  const events = (await firstRun.fetchHistory()).events ?? [];
  expect(lastStart?.continuedExecutionRunId).toBeTruthy();
  expect(events.length).toBeLessThan(HISTORY_LIMIT);
  expect(events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes).toBeTruthy();
  expect(await run.store.getSession(run.sessionId)).toMatchObject({ status: 'completed' });
});
