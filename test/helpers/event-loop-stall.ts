// How long the event loop was held while some work ran: the worker's main thread judges every
// session's commands and sends their heartbeats, so nothing a tool does may hold it for long.
import { readFileSync } from 'node:fs';

// The main thread's time spent runnable but waiting for a core (Linux schedstat, nanoseconds).
// On a busy machine (other test files running beside this one) a thread can wait for a core for
// hundreds of milliseconds: that delay is the machine's, not the work's, and is left out.
const SCHEDSTAT = `/proc/self/task/${process.pid}/schedstat`;

function waitingForCoreMs(): number {
  try {
    return Number(readFileSync(SCHEDSTAT, 'utf8').split(' ')[1]) / 1e6;
  } catch {
    return 0; // no schedstat (not Linux): every delay counts
  }
}

/**
 * What `work` returns, and the longest the event loop was held meanwhile (beyond its beat), not
 * counting time the thread waited for a core.
 */
export async function longestStallDuring<T>(work: () => Promise<T>, beatMs = 20): Promise<{ value: T; longestStallMs: number }> {
  let longestStallMs = 0;
  let last = Date.now();
  let lastWaiting = waitingForCoreMs();
  const monitor = setInterval(() => {
    const now = Date.now();
    const waiting = waitingForCoreMs();
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
