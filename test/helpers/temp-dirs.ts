// Temporary folders for a test file, removed once its tests are done. A module of its own so that
// unit tests can use it without loading the Temporal SDK (session-harness.ts re-exports it).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const madeDirs: string[] = [];
afterAll(() => {
  for (const dir of madeDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

export function tempDir(prefix = 'hermes-test-'): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  madeDirs.push(dir);
  return dir;
}
