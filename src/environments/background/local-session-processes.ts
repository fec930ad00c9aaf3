// Where the local backend keeps a session's background processes, and how `run` stops those of a
// session nobody can end any more (it quit, and its embedded server went with it).
import { execFile } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { EnvironmentHandle } from '../terminal-environment';
import { stopSessionProcessesScript } from './session-processes-script';

const STOP_TIMEOUT_MS = 5000;

/** A session's name on this machine: its process files and its process cap go by it. */
export function sessionKeyOf(handle: Pick<EnvironmentHandle, 'sessionId'>): string {
  return (handle.sessionId ?? 'default').replace(/[^A-Za-z0-9_-]/g, '_');
}

/** The folder of a session's background process files. */
export function localBackgroundStateDir(sessionKey: string): string {
  return path.join(os.tmpdir(), 'hermes-bg', sessionKey);
}

/**
 * Stops at once what the session and its sub-agents (`<id>-sa<n>`, at any depth) still run in
 * the background here, and removes their process files. Best effort, bounded in time.
 */
export async function stopAbandonedSessionProcesses(sessionId: string): Promise<void> {
  const root = localBackgroundStateDir('');
  const family = new RegExp(`^${sessionKeyOf({ sessionId })}(-sa\\d+)*$`);
  const names = (await readdir(root).catch(() => [] as string[])).filter((name) => family.test(name));
  await Promise.all(
    names.map(
      (name) =>
        new Promise<void>((resolve) => {
          execFile('bash', ['-c', stopSessionProcessesScript(path.join(root, name), 0)], { timeout: STOP_TIMEOUT_MS }, () => resolve());
        }),
    ),
  );
}
