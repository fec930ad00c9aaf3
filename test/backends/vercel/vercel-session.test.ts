// A whole agentSession on the real Temporal server with the Vercel Sandbox backend, the worker's Vercel
// driver talking to a local stand-in behind the SDK seam (commands really run on this machine).
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { VercelDriver } from '../../../src/environments/vercel/vercel-driver';
import { connectHarness, toolResults, type Harness } from '../../helpers/session-harness';
import { expectSandboxSessionResults, sandboxSessionScript, withDriverSession } from '../../helpers/stand-in-session';
import { LocalVercelStandIn } from './local-vercel-stand-in';

let harness: Harness;
let workdir: string;
const api = new LocalVercelStandIn();

beforeAll(async () => {
  harness = await connectHarness();
  workdir = path.join(realpathSync(mkdtempSync(path.join(os.tmpdir(), 'hermes-vercel-session-'))), 'workspace');
  mkdirSync(workdir);
});

afterAll(async () => {
  api.terminateAll();
  rmSync(path.dirname(workdir), { recursive: true, force: true });
  await harness.close();
});

test('[local stand-in for Vercel] a session runs its tools in one Vercel sandbox, which is removed when the session ends', async () => {
  await withDriverSession(
    harness,
    {
      script: sandboxSessionScript,
      config: { terminal: { backend: 'vercel_sandbox', vercel_sandbox: { workdir } } },
      drivers: (config) => ({ vercel_sandbox: new VercelDriver(config.terminal.vercel_sandbox, { api, killGraceMs: 500 }) }),
    },
    async ({ handle, store }) => {
      expect(await handle.result()).toMatchObject({ status: 'completed', answer: 'All done in the sandbox.', toolCalls: 4 });
      expectSandboxSessionResults(await toolResults(store, handle), workdir);
      expect(api.methods()).toEqual(['find', 'create', 'remove']);
      expect(api.sandboxes.size).toBe(0);
    },
  );
});
