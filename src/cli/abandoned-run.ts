// A `run` on an embedded server owns its session: when `run` goes, so does the server, and no
// worker will ever finish the session. Whatever way `run` ends (a quit it handles, a crash, or
// SIGKILL, which it cannot), what the session left running here stops and the store says the
// session and its sub-agents were abandoned.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { LoadedConfig } from '../config/load';
import { destroyAbandonedLocalSession } from '../environments/factory';
import { OPEN_SESSION_STATUSES, type SessionStore } from '../store/session-store';
import { isBelow } from './session-tree';

/**
 * What no worker will do for a session whose server is gone: stop what it and its sub-agents
 * still run in the background here (local backend), and record them abandoned for `reason`.
 */
export async function abandonSession(store: SessionStore, session: { sessionId: string; backend: string }, reason: string): Promise<void> {
  if (session.backend === 'local') await destroyAbandonedLocalSession(session.sessionId);
  await recordAbandoned(store, session.sessionId, reason);
}

/** Records the session, and each sub-agent below it still open, as abandoned for `reason`. */
export async function recordAbandoned(store: SessionStore, sessionId: string, reason: string): Promise<void> {
  const recent = await store.listSessions({ limit: 1000 });
  const open = recent.filter(
    (session) => OPEN_SESSION_STATUSES.has(session.status) && (session.sessionId === sessionId || isBelow(session, sessionId, recent)),
  );
  // A root older than the last thousand sessions is still recorded.
  if (!recent.some((session) => session.sessionId === sessionId)) {
    const root = await store.getSession(sessionId);
    if (root && OPEN_SESSION_STATUSES.has(root.status)) open.push(root);
  }
  for (const session of open) await store.updateSession(session.sessionId, { status: 'abandoned', error: reason });
}

export interface AbandonWatch {
  /** The run ended the session's way (or cleaned up itself): the watcher goes without acting. */
  disarm(): void;
}

/** Read by the reaper (reap-abandoned-run.ts): where the store is, which `run` may have changed. */
export const REAPER_STORE_VARIABLE = 'HERMES_ABANDONED_RUN_STORE';

/**
 * Starts a watcher outside this process: a shell blocked reading a pipe from us. The pipe ends
 * when this process does, even on SIGKILL; unless disarmed (killed) first, the watcher then runs
 * the reaper. Undefined where the reaper is not built (running from sources).
 */
export function armAbandonWatch(run: { sessionId: string; backend: string; store: LoadedConfig['store'] }): AbandonWatch | undefined {
  const reaper = path.join(__dirname, 'reap-abandoned-run.js');
  if (!existsSync(reaper)) return undefined;
  const watcher = spawn(
    '/bin/sh',
    ['-c', 'read -r _; exec "$@"', 'hermes-run-watch', process.execPath, reaper, run.sessionId, run.backend],
    // Its own process group: the terminal's Ctrl+C and hang-up reach `run`, not the watcher.
    { detached: true, stdio: ['pipe', 'ignore', 'ignore'], env: { ...process.env, [REAPER_STORE_VARIABLE]: JSON.stringify(run.store) } },
  );
  watcher.on('error', () => undefined);
  watcher.stdin?.on('error', () => undefined);
  // Neither the watcher nor its pipe keeps this process alive.
  watcher.unref();
  (watcher.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  return {
    // Killed rather than told: synchronous, so it holds even when this process exits right after.
    disarm: () => {
      try {
        if (watcher.pid) process.kill(watcher.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    },
  };
}
