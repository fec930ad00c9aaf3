// At most so many of a turn's calls run at once. One reply may hold 2,048 calls that may all run
// side by side (reads): scheduled together they passed the server's limit of 2,000 pending
// activities per workflow (every task then failed, and the session stood still), and their
// completions arrived faster than the server buffers while a task runs. The original runs eight.
// Deterministic: slots are handed out in the order they were asked for.

export class CallSlots {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  /** Whether work asking now would wait for a slot. */
  get full(): boolean {
    return this.running >= this.limit;
  }

  /** Runs `work` once a slot is free, and frees it when `work` settles. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.full) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running += 1;
    try {
      return await work();
    } finally {
      // The slot passes straight to the next in line, so a late caller cannot take it first.
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }
}
