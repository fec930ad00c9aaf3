// The CPU time a process and everything it started have used, read from /proc. A script's clock
// stops while the worker answers its tool calls (an approval may take hours), but what the script
// computes meanwhile still counts: this measures it (see script-process.ts).
import { readdirSync, readFileSync } from 'node:fs';
import { procStatFields } from '../environments/process-group';

/** USER_HZ, the unit of /proc's CPU times: fixed at 100 by Linux's ABI. */
const TICKS_PER_SECOND = 100;
/** A session's process cap is far lower; this only bounds the walk. */
const MAX_PROCESSES = 4096;
/** utime, stime, cutime, cstime: proc(5) fields 14-17, counted from field 3 (the state). */
const CPU_FIELDS = [11, 12, 13, 14];

/**
 * Milliseconds of CPU used by `rootPid` and its descendants (children that were waited for count
 * through their parent). A process that left the tree by a double fork is still counted inside a
 * sandbox, whose namespace init adopts it; 0 where /proc cannot be read.
 */
export function processTreeCpuMs(rootPid: number): number {
  let ticks = 0;
  const queue = [rootPid];
  for (let index = 0; index < queue.length && index < MAX_PROCESSES; index += 1) {
    const pid = queue[index]!;
    const fields = procStatFields(pid);
    if (!fields) continue; // Gone while we looked.
    for (const field of CPU_FIELDS) ticks += Number(fields[field]) || 0;
    queue.push(...childrenOf(pid));
  }
  return (ticks * 1000) / TICKS_PER_SECOND;
}

/** Children of every thread of `pid`: a child started from a thread is listed under that thread. */
function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((thread) => {
      try {
        return readFileSync(`/proc/${pid}/task/${thread}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
      } catch {
        return [];
      }
    });
  } catch {
    return [];
  }
}
