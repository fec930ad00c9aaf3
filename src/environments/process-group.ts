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
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // Gone while we looked.
    }
    // After the command name (which may hold spaces and parentheses): state, ppid, pgrp, ...
    const [state, , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(group) === pgid && state !== 'Z') return true;
  }
  return false;
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
