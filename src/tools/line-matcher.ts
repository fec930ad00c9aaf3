// search_files' content pattern, run in a worker thread with a time budget. RE2 is linear, but in
// the text's length times the pattern's size: 89 characters of pattern took 3.5 s on a line of
// 20,000 characters, so minutes on a file that is one 2 MB line. On the worker's main thread that
// held every session's heartbeats and calls; here it holds only this search, which stops when its
// budget is spent.
import { Worker } from 'node:worker_threads';

/** Longer patterns are refused: the pattern is compiled, and its size multiplies every line's cost. */
export const MAX_PATTERN_CHARS = 2000;

// Plain JavaScript for the thread: compiles the pattern (as literal text when RE2 cannot), then
// answers each batch of lines with the indexes of those that match.
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { RE2JS } = require(workerData.engine);
let compiled;
let note;
try {
  compiled = RE2JS.compile(workerData.pattern);
} catch (error) {
  compiled = RE2JS.compile(RE2JS.quote(workerData.pattern));
  note = error instanceof Error ? error.message : String(error);
}
parentPort.postMessage({ note });
parentPort.on('message', (lines) => {
  const hits = [];
  for (let index = 0; index < lines.length; index += 1) if (compiled.matcher(lines[index]).find()) hits.push(index);
  parentPort.postMessage({ hits });
});
`;

/** The search spent its budget matching: what it found so far stands. */
export class MatchBudgetSpent extends Error {
  override readonly name = 'MatchBudgetSpent';
}

export class LineMatcher {
  private readonly thread: Worker;
  private remainingMs: number;
  private readonly ready: Promise<{ note?: string }>;

  /**
   * @param pattern the model's regular expression (RE2 syntax); searched as literal text when RE2 cannot compile it
   * @param budgetMs the matching time this search may spend in all, compiling included
   */
  constructor(
    pattern: string,
    budgetMs: number,
    private readonly signal?: AbortSignal,
  ) {
    if (pattern.length > MAX_PATTERN_CHARS) throw new Error(`the pattern is longer than ${MAX_PATTERN_CHARS} characters`);
    this.remainingMs = budgetMs;
    this.thread = new Worker(THREAD_SOURCE, { eval: true, workerData: { pattern, engine: require.resolve('re2js') } });
    this.thread.unref();
    this.ready = this.exchange(undefined) as Promise<{ note?: string }>;
  }

  /** Why the pattern is searched as literal text, if it is. */
  async note(): Promise<string | undefined> {
    return (await this.ready).note;
  }

  /** The indexes of `lines` that the pattern matches. */
  async matching(lines: readonly string[]): Promise<number[]> {
    await this.ready;
    return ((await this.exchange(lines)) as { hits: number[] }).hits;
  }

  close(): void {
    void this.thread.terminate();
  }

  /** One message to the thread (none: wait for its first) and its answer, within what is left of the budget. */
  private exchange(lines: readonly string[] | undefined): Promise<unknown> {
    const started = Date.now();
    return new Promise((resolve, reject) => {
      const settle = (outcome: () => void) => {
        clearTimeout(timer);
        this.thread.off('message', onMessage).off('error', onError);
        this.signal?.removeEventListener('abort', onAbort);
        this.remainingMs -= Date.now() - started;
        outcome();
      };
      const onMessage = (message: unknown) => settle(() => resolve(message));
      const onError = (error: Error) => settle(() => reject(error));
      const onAbort = () => {
        this.close();
        const reason: unknown = this.signal?.reason;
        settle(() => reject(reason instanceof Error ? reason : new Error('search cancelled')));
      };
      const timer = setTimeout(() => {
        this.close();
        settle(() => reject(new MatchBudgetSpent()));
      }, Math.max(0, this.remainingMs));
      this.thread.on('message', onMessage).on('error', onError);
      this.signal?.addEventListener('abort', onAbort, { once: true });
      if (lines) this.thread.postMessage(lines);
    });
  }
}
