// Whether a process group still runs something, read from /proc where it exists. A group can
// outlive its leader: a sandboxed command's namespace init ignores SIGTERM, and a process forked
// just after the signal never received it.
import { readdirSync, readFileSync } from 'node:fs';

/** True while a process other than a zombie belongs to group `pgid`. */
export function groupHasLiveMembers(pgid: number): boolean {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return signalReaches(pgid);
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = procStatFields(Number(entry));
    if (!fields) continue; // Gone while we looked.
    const [state, , group] = fields;
    if (Number(group) === pgid && state !== 'Z') return true;
  }
  return false;
}

/**
 * The fields of /proc/<pid>/stat after the command name (which may hold spaces and parentheses):
 * state, ppid, pgrp, ... (field 3 of proc(5) is the first); undefined where there is none.
 */
export function procStatFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** Waits up to `ms` for group `pgid` to have no live member; true when it has none. */
export async function groupEmptyWithin(pgid: number, ms: number, intervalMs = 50): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (!groupHasLiveMembers(pgid)) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

function signalReaches(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
