// How long the event loop was held while some work ran: the worker's main thread judges every
// session's commands and sends their heartbeats, so nothing a tool does may hold it for long.
import { readFileSync } from 'node:fs';

// The main thread's time on a core and time spent runnable but waiting for one (Linux
// schedstat). On a busy machine (other test files running beside this one) a thread can wait for
// a core for hundreds of milliseconds: that delay is the machine's, not the work's, and is left out.
const SCHEDSTAT = `/proc/self/task/${process.pid}/schedstat`;

export function mainThreadSchedule(): { runMs: number; waitingMs: number } {
  const [run, waiting] = readFileSync(SCHEDSTAT, 'utf8').split(' ').map(Number);
  return { runMs: (run ?? 0) / 1e6, waitingMs: (waiting ?? 0) / 1e6 };
}

/**
 * What `work` returns, and the longest the event loop was held meanwhile (beyond its beat), not
 * counting time the thread waited for a core.
 */
export async function longestStallDuring<T>(work: () => Promise<T>, beatMs = 20): Promise<{ value: T; longestStallMs: number }> {
  let longestStallMs = 0;
  let last = Date.now();
  let lastWaiting = mainThreadSchedule().waitingMs;
  const monitor = setInterval(() => {
    const now = Date.now();
    const waiting = mainThreadSchedule().waitingMs;
    longestStallMs = Math.max(longestStallMs, now - last - beatMs - (waiting - lastWaiting));
    last = now;
    lastWaiting = waiting;
  }, beatMs);
  try {
    const value = await work();
    return { value, longestStallMs };
  } finally {
    clearInterval(monitor);
  }
}
