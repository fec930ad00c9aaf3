// A `run` on an embedded server owns its session: when `run` goes, so does the server, and no
// worker will ever finish the session. Whatever way `run` ends (a quit it handles, a crash, or
// SIGKILL, which it cannot), what the session left running here stops and the store says the
// session and its sub-agents were abandoned. When even the watcher goes (the machine restarts),
// the claim `run` left in the home folder lets the next command that reads the store say so.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { LoadedConfig } from '../config/load';
import { OPEN_SESSION_STATUSES, type SessionStore } from '../store/session-store';
import { procStatFields } from '../environments/process-group';
import { isBelow } from './session-tree';

/**
 * What no worker will do for a session whose server is gone: stop what it and its sub-agents
 * still run in the background here (local backend), and record them abandoned for `reason`.
 */
export async function abandonSession(store: SessionStore, session: { sessionId: string; backend: string }, reason: string): Promise<void> {
  if (session.backend === 'local') {
    // First, from a small module: a quitting `run` may exit before the rest is done (on a loaded
    // machine, loading the backends alone can take its whole clean-up bound).
    const { removeSessionGroupsWhenEmpty } = await import('../environments/session-process-caps');
    removeSessionGroupsWhenEmpty(session.sessionId);
    // Loaded only here: `sessions` checks for orphaned runs on every call and should stay quick.
    const { destroyAbandonedLocalSession } = await import('../environments/factory');
    await destroyAbandonedLocalSession(session.sessionId);
  }
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

/** Where each `run` on an embedded server names the session it owns, while it runs. */
function claimDir(home: string): string {
  return path.join(home, 'runs');
}

interface RunClaim {
  sessionId: string;
  backend: string;
  pid: number;
  /** The owner's boot and start time (see processIdentity): a reused pid is not the owner. */
  identity?: string;
}

const ORPHANED_REASON =
  'Abandoned: the hermes-temporal run that served it is gone (the machine restarted, or the run and its watcher were killed), and the Temporal server it had started went with it';

/**
 * Abandons the sessions whose `run` (and its watcher) ended without a word: their claims remain
 * while no process is their owner anymore. Cheap when there are none; called before the store is read.
 */
export async function settleOrphanedRuns(home: string, store: SessionStore): Promise<string[]> {
  const dir = claimDir(home);
  const settled: string[] = [];
  for (const file of safeReaddir(dir).filter((name) => name.endsWith('.json'))) {
    const claim = readClaim(path.join(dir, file));
    if (!claim) continue;
    if (isRunning(claim.pid, claim.identity)) continue;
    await abandonSession(store, claim, ORPHANED_REASON);
    rmSync(path.join(dir, file), { force: true });
    settled.push(claim.sessionId);
  }
  return settled;
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function readClaim(file: string): RunClaim | undefined {
  try {
    const claim = JSON.parse(readFileSync(file, 'utf8')) as Partial<RunClaim>;
    if (typeof claim.sessionId !== 'string' || typeof claim.backend !== 'string' || !Number.isInteger(claim.pid)) return undefined;
    return claim as RunClaim;
  } catch {
    // Being written, or not ours: left alone.
    return undefined;
  }
}

function isRunning(pid: number, identity: string | undefined): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return identity === undefined || processIdentity(pid) === identity;
}

/**
 * A process's boot id and start time, where /proc has them (Linux): the same pid after a restart,
 * or reused later, names another process. Undefined elsewhere (only liveness is checked then).
 */
export function processIdentity(pid: number): string | undefined {
  try {
    const bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    // Field 22 of proc(5) is the start time.
    const startTime = procStatFields(pid)?.[19];
    return startTime ? `${bootId}:${startTime}` : undefined;
  } catch {
    return undefined;
  }
}

export interface AbandonWatch {
  /** The run ended the session's way (or cleaned up itself): the watcher goes without acting. */
  disarm(): void;
}

/** Read by the reaper (reap-abandoned-run.ts): where the store is, which `run` may have changed. */
export const REAPER_STORE_VARIABLE = 'HERMES_ABANDONED_RUN_STORE';

/**
 * Claims the session for this process in the home folder, and starts a watcher outside this
 * process: a shell blocked reading a pipe from us. The pipe ends when this process does, even on
 * SIGKILL; unless disarmed (killed) first, the watcher then runs the reaper. The watcher is left
 * out where the reaper is not built (running from sources); the claim still covers that case.
 */
export function armAbandonWatch(run: { sessionId: string; backend: string; home: string; store: LoadedConfig['store'] }): AbandonWatch {
  const claim = path.join(claimDir(run.home), `${run.sessionId}.json`);
  mkdirSync(path.dirname(claim), { recursive: true, mode: 0o700 });
  const owned: RunClaim = { sessionId: run.sessionId, backend: run.backend, pid: process.pid, identity: processIdentity(process.pid) };
  writeFileSync(claim, JSON.stringify(owned), { mode: 0o600 });
  const release = () => rmSync(claim, { force: true });
  const reaper = path.join(__dirname, 'reap-abandoned-run.js');
  if (!existsSync(reaper)) return { disarm: release };
  const watcher = spawn(
    '/bin/sh',
    ['-c', 'read -r _; exec "$@"', 'hermes-run-watch', process.execPath, reaper, run.sessionId, run.backend, claim],
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
      release();
    },
  };
}
