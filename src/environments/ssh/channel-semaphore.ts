// Caps the channels open at once on one SSH connection: OpenSSH refuses channels beyond its
// MaxSessions (default 10) with "Channel open failure", so extra commands wait here instead.

export class ChannelSemaphore {
  private inUse = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly limit: number) {}

  /** Resolves with a release function once a slot is free; release exactly once. */
  async acquire(): Promise<() => void> {
    if (this.inUse < this.limit) {
      this.inUse += 1;
    } else {
      // The releasing holder hands its slot over directly, so inUse stays counted.
      await new Promise<void>((resolve) => this.waiting.push(resolve));
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
