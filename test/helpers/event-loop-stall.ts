// How long the event loop was held while some work ran: the worker's main thread judges every
// session's commands and sends their heartbeats, so nothing a tool does may hold it for long.

/** What `work` returns, and the longest the event loop was held meanwhile (beyond its beat). */
export async function longestStallDuring<T>(work: () => Promise<T>, beatMs = 20): Promise<{ value: T; longestStallMs: number }> {
  let longestStallMs = 0;
  let last = Date.now();
  const monitor = setInterval(() => {
    const now = Date.now();
    longestStallMs = Math.max(longestStallMs, now - last - beatMs);
    last = now;
  }, beatMs);
  try {
    const value = await work();
    return { value, longestStallMs };
  } finally {
    clearInterval(monitor);
  }
}
