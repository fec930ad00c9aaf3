// A background process starting while the workspace has no repository runs without read-only
// hooks and config for as long as it lives: whatever repository appears there in the meantime is
// treated as one it may have created (git-control.ts disarms it after each later command and at
// the session's end). The marker names the workspace, for whoever stops the session.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gitDirectoryOf } from './git-repositories';

/** Left in a session's (worker-side) state folder by a background process started with no repository to guard. */
const UNGUARDED_MARKER = 'repository-unguarded';

export function noteUnguardedStart(stateDir: string, workspace: string): void {
  if (gitDirectoryOf(workspace) !== undefined) return;
  mkdirSync(stateDir, { recursive: true });
  writeFileSync(path.join(stateDir, UNGUARDED_MARKER), workspace);
}

/** The workspace a background process of this session started in with no repository to guard. */
export function unguardedWorkspace(stateDir: string): string | undefined {
  try {
    return readFileSync(path.join(stateDir, UNGUARDED_MARKER), 'utf8') || undefined;
  } catch {
    return undefined;
  }
}
