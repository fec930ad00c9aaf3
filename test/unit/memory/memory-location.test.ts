// Memory steers every later session, so what commands and file tools can do to it matters: its
// files live in the hermes home, hidden from sandboxed commands and treated as secret by the gate.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { hermesSecretFiles } from '../../../src/approval-signals/command-assessment';
import { matchesProtectedFile } from '../../../src/approval-signals/protected-paths';
import { loadConfig } from '../../../src/config/load';
import { localSandbox } from '../../../src/environments/drivers';
import { memoryDirectory } from '../../../src/memory/create-memory-store';

let root: string;
beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'hermes-memory-location-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

it('keeps MEMORY.md and USER.md under the hermes home, which sandboxed commands cannot see and file tools must ask to touch', () => {
  const home = path.join(root, 'home');
  const config = loadConfig({ env: { HERMES_TEMPORAL_HOME: home }, projectDir: root });
  const files = ['MEMORY.md', 'USER.md'].map((name) => path.join(memoryDirectory(config), name));
  expect(files).toEqual([path.join(home, 'memories', 'MEMORY.md'), path.join(home, 'memories', 'USER.md')]);
  // The local sandbox hides the whole home (and so the memories folder in it).
  expect(localSandbox(config).settings.runtimePaths).toContain(home);
  // read_file / write_file / patch on them are gated as secret reads and protected writes.
  for (const file of files) expect(matchesProtectedFile(file, hermesSecretFiles(config))).toBe(true);
});
