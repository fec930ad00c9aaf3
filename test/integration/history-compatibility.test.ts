// Sessions outlive versions: a session started (or parked on an approval) before an upgrade must
// replay on the new workflow code, or the upgrade fails it. Each fixture is a whole session
// recorded by an earlier version (test/fixtures/histories/record-history.ts).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { WORKFLOWS_PATH } from '../../src/temporal/worker';

const FIXTURES = path.resolve(__dirname, '../fixtures/histories');
const recorded = readdirSync(FIXTURES).filter((file) => file.endsWith('.json'));

test('there are recorded histories to replay', () => {
  expect(recorded.length).toBeGreaterThan(0);
});

test.each(recorded)('a session recorded as %s replays on this version', async (file) => {
  // The history is in protobufjs's own JSON form, which its fromObject reads back.
  const fixture = JSON.parse(readFileSync(path.join(FIXTURES, file), 'utf8')) as { workflowId: string; history: Record<string, unknown> };
  const history = temporal.api.history.v1.History.fromObject(fixture.history);
  const bundlePath = process.env.HERMES_TEST_WORKFLOW_BUNDLE;
  await Worker.runReplayHistory(bundlePath ? { workflowBundle: { codePath: bundlePath } } : { workflowsPath: WORKFLOWS_PATH }, history, fixture.workflowId);
}, 120_000);
