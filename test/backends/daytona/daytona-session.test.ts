// A whole agentSession on the real Temporal server with the Daytona backend, the worker's Daytona
// driver talking to a local stand-in behind the SDK seam (commands really run on this machine).
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DaytonaDriver } from '../../../src/environments/daytona/daytona-driver';
import { connectHarness, toolResults, type Harness } from '../../helpers/session-harness';
import { expectSandboxSessionResults, sandboxSessionScript, withDriverSession } from '../../helpers/stand-in-session';
import { LocalDaytonaStandIn } from './local-daytona-stand-in';

let harness: Harness;
let workdir: string;
const api = new LocalDaytonaStandIn();

beforeAll(async () => {
  harness = await connectHarness();
  workdir = path.join(realpathSync(mkdtempSync(path.join(os.tmpdir(), 'hermes-daytona-session-'))), 'workspace');
  mkdirSync(workdir);
});

afterAll(async () => {
  api.terminateAll();
  rmSync(path.dirname(workdir), { recursive: true, force: true });
  await harness.close();
});

test('[local stand-in for Daytona] a session runs its tools in one Daytona sandbox, which is deleted when the session ends', async () => {
  await withDriverSession(
    harness,
    {
      script: sandboxSessionScript,
      config: { terminal: { backend: 'daytona', daytona: { workdir } } },
      drivers: (config) => ({ daytona: new DaytonaDriver(config.terminal.daytona, { api, killGraceMs: 500 }) }),
    },
    async ({ handle, store }) => {
      expect(await handle.result()).toMatchObject({ status: 'completed', answer: 'All done in the sandbox.', toolCalls: 4 });
      expectSandboxSessionResults(await toolResults(store, handle), workdir);
      expect(api.methods()).toEqual(['find', 'create', 'delete']);
      expect(api.sandboxes.size).toBe(0);
    },
  );
});
