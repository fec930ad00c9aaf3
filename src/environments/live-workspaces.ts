// The workspaces local sessions on this machine work in now, one small file per session in the
// worker's temporary folder (`hermes-workspaces/<session key>`), written by whichever worker runs
// the session and removed when it ends. A session whose workspace holds another's (a workspace
// of `/tmp` holds every session started in a temporary folder; one of `~` every project) does
// not see or write that one: its commands find it hidden, and a file tool's write there asks.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isWithin } from './path-within';
import { LIVE_WORKSPACES_FOLDER } from './runtime-temp-folders';

interface LiveWorkspace {
  workspace: string;
  /** The worker that recorded it: a file whose worker is gone is left from a crash. */
  pid: number;
}

function folder(): string {
  return path.join(os.tmpdir(), LIVE_WORKSPACES_FOLDER);
}

/** Sub-agents (`<key>-sa<n>`) share their root session's work: one family. */
function familyOf(sessionKey: string): string {
  return sessionKey.replace(/(?:-sa\d+)+$/, '');
}

/** What this worker recorded, so attaching again writes nothing. */
const recorded = new Map<string, string>();

/** Notes that `sessionKey` (a safe file name) works in `workspace` (a real path), from this worker. */
export function recordLiveWorkspace(sessionKey: string, workspace: string): void {
  if (recorded.get(sessionKey) === workspace) return;
  try {
    mkdirSync(folder(), { recursive: true, mode: 0o700 });
    writeFileSync(path.join(folder(), sessionKey), JSON.stringify({ workspace, pid: process.pid } satisfies LiveWorkspace), { mode: 0o600 });
    recorded.set(sessionKey, workspace);
  } catch {
    // A temp folder this worker cannot write: other sessions are not told of this one.
  }
}

export function forgetLiveWorkspace(sessionKey: string): void {
  recorded.delete(sessionKey);
  rmSync(path.join(folder(), sessionKey), { force: true });
}

/** The workspaces of live sessions outside `sessionKey`'s family that lie strictly inside `workspace`. */
export function otherLiveWorkspacesWithin(workspace: string, sessionKey: string): string[] {
  const family = familyOf(sessionKey);
  const found: string[] = [];
  let names: string[];
  try {
    names = readdirSync(folder());
  } catch {
    return [];
  }
  for (const name of names) {
    if (familyOf(name) === family) continue;
    const file = path.join(folder(), name);
    const entry = readEntry(file);
    if (!entry) continue;
    if (!workerAlive(entry.pid)) {
      // Left by a worker that died with the session: nobody else removes it.
      rmSync(file, { force: true });
      continue;
    }
    if (entry.workspace !== workspace && isWithin(entry.workspace, workspace)) found.push(entry.workspace);
  }
  return found;
}

function readEntry(file: string): LiveWorkspace | undefined {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<LiveWorkspace>;
    return typeof parsed.workspace === 'string' && path.isAbsolute(parsed.workspace) && typeof parsed.pid === 'number' ? { workspace: parsed.workspace, pid: parsed.pid } : undefined;
  } catch {
    return undefined;
  }
}

function workerAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
