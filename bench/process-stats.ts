// What the kernel says about a benchmark's processes: CPU used so far, and which one is the dev server.
import { readFileSync, readdirSync } from 'node:fs';

/** CPU seconds (user and system) a process has used so far, in the kernel's 10 ms ticks. */
export function cpuSecondsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * CPU seconds of a worker process and of the small helper it starts commands and git from
 * (src/environments/small-spawner.ts: a child `node -e`), which forks on the worker's behalf:
 * counting the worker alone would leave that work out. Programs started are counted in neither.
 */
export function workerCpuSeconds(pid: number): number {
  return cpuSecondsOf(pid) + spawnerHelpersOf(pid).reduce((sum, helper) => sum + cpuSecondsOf(helper), 0);
}

function spawnerHelpersOf(pid: number): number[] {
  const children = readdirSync(`/proc/${pid}/task`).flatMap((thread) => {
    try {
      return readFileSync(`/proc/${pid}/task/${thread}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
    } catch {
      return [];
    }
  });
  return children.filter((child) => {
    try {
      const [program, flag] = readFileSync(`/proc/${child}/cmdline`, 'utf8').split('\0');
      return program === process.execPath && flag === '-e';
    } catch {
      return false;
    }
  });
}

/** The dev server's own process (the CLI runs under a watchdog shell), found by its port. */
export function serverPid(address: string): number | undefined {
  const port = address.split(':').at(-1);
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    const command = (() => {
      try {
        return readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      } catch {
        return [];
      }
    })();
    const isServer = command[0] !== '/bin/sh' && command.includes('start-dev');
    if (isServer && command[command.indexOf('--port') + 1] === port) return Number(entry);
  }
  return undefined;
}
