// At most `limit` holders at once; the rest wait in line. Caps the channels open on one SSH
// connection (OpenSSH refuses channels beyond its MaxSessions, default 10, with "Channel open
// failure") and the execute_code scripts one worker runs.

export class Semaphore {
  private inUse = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly limit: number) {}

  /**
   * Resolves with a release function once a slot is free; release exactly once. Rejects with the
   * signal's reason when it aborts first (the place in line is given up).
   */
  async acquire(signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    if (this.inUse < this.limit) {
      this.inUse += 1;
    } else {
      // The releasing holder hands its slot over directly, so inUse stays counted.
      await new Promise<void>((resolve, reject) => {
        const handOver = () => {
          signal?.removeEventListener('abort', giveUp);
          resolve();
        };
        const giveUp = () => {
          this.waiting.splice(this.waiting.indexOf(handOver), 1);
          reject(signal?.reason instanceof Error ? signal.reason : new Error('gave up waiting for a slot'));
        };
        this.waiting.push(handOver);
        signal?.addEventListener('abort', giveUp, { once: true });
      });
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.inUse -= 1;
    };
  }

  get active(): number {
    return this.inUse;
  }
}
