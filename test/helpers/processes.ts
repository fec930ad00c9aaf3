// Is a process still running? (This machine's PID 1 does not reap orphans, so a killed process
// can linger as a zombie: that counts as gone.)
import { randomInt } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return true;
  }
}

/**
 * A `sleep` with a command line no other process has. Sandboxed commands have their own PID
 * namespace, so the pid they see (`$!`) means nothing here: tests find the process by this line.
 */
export function markedSleep(seconds: number): string {
  return `sleep ${seconds}.${randomInt(100_000, 1_000_000)}`;
}

/** Pids (on this machine) of the live processes whose command line is exactly `commandLine`. */
export function pidsRunning(commandLine: string): number[] {
  const wanted = `${commandLine.split(' ').join('\0')}\0`;
  return pidsWhere((cmdline) => cmdline === wanted);
}

/** Live processes whose arguments include `argument` (one whole argument). */
export function pidsWithArgument(argument: string): number[] {
  return pidsWhere((cmdline) => cmdline.split('\0').includes(argument));
}

function pidsWhere(matches: (cmdline: string) => boolean): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (matches(readFileSync(`/proc/${entry}/cmdline`, 'utf8')) && isAlive(Number(entry))) pids.push(Number(entry));
    } catch {
      // Gone while we looked.
    }
  }
  return pids;
}

/** Pids of every live process below `pid` (children, grandchildren, ...), read from /proc. */
export function descendantPids(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const parent = Number(readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]?.split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // Gone while we looked.
    }
  }
  const found: number[] = [];
  const queue = [...(children.get(pid) ?? [])];
  while (queue.length) {
    const next = queue.shift()!;
    if (!isAlive(next)) continue;
    found.push(next);
    queue.push(...(children.get(next) ?? []));
  }
  return found;
}
