// A whole agentSession on the real Temporal server with the Modal backend, the worker's Modal
// driver talking to a local stand-in behind the SDK seam (commands really run on this machine).
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ModalDriver } from '../../../src/environments/modal/modal-driver';
import { connectHarness, toolResults, type Harness } from '../../helpers/session-harness';
import { expectSandboxSessionResults, sandboxSessionScript, withDriverSession } from '../../helpers/stand-in-session';
import { LocalModalStandIn } from './local-modal-stand-in';

let harness: Harness;
let workdir: string;
const api = new LocalModalStandIn();

beforeAll(async () => {
  harness = await connectHarness();
  workdir = path.join(realpathSync(mkdtempSync(path.join(os.tmpdir(), 'hermes-modal-session-'))), 'workspace');
  mkdirSync(workdir);
});

afterAll(async () => {
  api.terminateAll();
  rmSync(path.dirname(workdir), { recursive: true, force: true });
  await harness.close();
});

test('[local stand-in for Modal] a session runs its tools in one Modal sandbox, which is terminated when the session ends', async () => {
  await withDriverSession(
    harness,
    {
      script: sandboxSessionScript,
      config: { terminal: { backend: 'modal', modal: { workdir } } },
      drivers: (config) => ({ modal: new ModalDriver(config.terminal.modal, { api, killGraceMs: 500 }) }),
    },
    async ({ handle, store }) => {
      expect(await handle.result()).toMatchObject({ status: 'completed', answer: 'All done in the sandbox.', toolCalls: 4 });
      expectSandboxSessionResults(await toolResults(store, handle), workdir);
      expect(api.methods()).toEqual(['findSandbox', 'createSandbox', 'terminate']);
      expect([...api.sandboxes.values()].every(({ sandbox }) => !sandbox.running)).toBe(true);
    },
  );
});
