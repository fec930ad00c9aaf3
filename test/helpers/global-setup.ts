// Jest global setup for integration tests: one real Temporal dev server (loopback, headless)
// and one workflow bundle for the whole run. Their locations reach the tests through env vars.
import { writeFileSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflows } from '../../src/temporal/worker';
import { startDevServer } from '../../src/temporal/dev-server';

export default async function globalSetup(): Promise<void> {
  const server = await startDevServer({
    headless: true,
    log: (message) => console.log(message),
    dynamicConfig: { 'frontend.enableUpdateWorkflowExecution': true },
  });
  (globalThis as { __hermesDevServer?: typeof server }).__hermesDevServer = server;
  const bundle = await bundleWorkflows();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hermes-bundle-'));
  const codePath = path.join(dir, 'workflow-bundle.js');
  writeFileSync(codePath, 'code' in bundle ? bundle.code : '');
  process.env.HERMES_TEST_TEMPORAL_ADDRESS = server.address;
  process.env.HERMES_TEST_WORKFLOW_BUNDLE = codePath;
  // Removed by the teardown: 2.4 MB a run, left in the temp folder otherwise.
  (globalThis as { __hermesBundleDir?: string }).__hermesBundleDir = dir;
}
