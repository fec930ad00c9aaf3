// search_files' content pattern, run in a worker thread with a time budget. RE2 is linear, but in
// the text's length times the pattern's size: 89 characters of pattern took 3.5 s on a line of
// 20,000 characters, so minutes on a file that is one 2 MB line. On the worker's main thread that
// held every session's heartbeats and calls; here it holds only this search, which stops when its
// budget is spent. Threads are kept between searches (see MAX_IDLE_THREADS).
import { Worker } from 'node:worker_threads';

/** Longer patterns are refused: the pattern is compiled, and its size multiplies every line's cost. */
export const MAX_PATTERN_CHARS = 2000;

// Plain JavaScript for the thread: for each pattern it is sent, compiles it (as literal text when
// RE2 cannot), then answers each batch of lines with the indexes of those that match.
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { RE2JS } = require(workerData.engine);
let compiled;
parentPort.on('message', (message) => {
  if (typeof message.pattern === 'string') {
    let note;
    try {
      compiled = RE2JS.compile(message.pattern);
    } catch (error) {
      compiled = RE2JS.compile(RE2JS.quote(message.pattern));
      note = error instanceof Error ? error.message : String(error);
    }
    parentPort.postMessage({ note });
    return;
  }
  const hits = [];
  for (let index = 0; index < message.lines.length; index += 1) if (compiled.matcher(message.lines[index]).find()) hits.push(index);
  parentPort.postMessage({ hits });
});
`;

/**
 * Threads kept between searches: starting one costs 30-60 ms, more than most searches spend
 * matching. A thread that spent its budget or was cancelled mid-match is never kept.
 */
const MAX_IDLE_THREADS = 2;
const idleThreads: Worker[] = [];

function takeThread(): Worker {
  const kept = idleThreads.pop();
  if (kept) return kept;
  const thread = new Worker(THREAD_SOURCE, { eval: true, workerData: { engine: require.resolve('re2js') } });
  thread.unref(); // Kept threads never hold the worker's process open.
  thread.once('exit', () => {
    const index = idleThreads.indexOf(thread);
    if (index !== -1) idleThreads.splice(index, 1);
  });
  return thread;
}

function keepOrEnd(thread: Worker): void {
  if (idleThreads.length < MAX_IDLE_THREADS) idleThreads.push(thread);
  else void thread.terminate();
}

/** The search spent its budget matching: what it found so far stands. */
export class MatchBudgetSpent extends Error {
  override readonly name = 'MatchBudgetSpent';
}

export class LineMatcher {
  private readonly thread: Worker;
  private remainingMs: number;
  /** An answer is awaited, or the thread was stopped: it cannot serve another search. */
  private unfit = false;
  private closed = false;
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
    this.thread = takeThread();
    this.ready = this.exchange({ pattern }) as Promise<{ note?: string }>;
  }

  /** The thread this search runs in (kept threads serve one search after another). */
  get threadId(): number {
    return this.thread.threadId;
  }

  /** Why the pattern is searched as literal text, if it is. */
  async note(): Promise<string | undefined> {
    return (await this.ready).note;
  }

  /** The indexes of `lines` that the pattern matches. */
  async matching(lines: readonly string[]): Promise<number[]> {
    await this.ready;
    return ((await this.exchange({ lines })) as { hits: number[] }).hits;
  }

  /** Ends this search; its thread serves a later one unless it is still matching. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.unfit) void this.thread.terminate();
    else keepOrEnd(this.thread);
  }

  /** Stops the thread mid-match: it is not kept. */
  private stop(): void {
    this.unfit = true;
    this.closed = true;
    void this.thread.terminate();
  }

  /** One message to the thread and its answer, within what is left of the budget. */
  private exchange(message: { pattern: string } | { lines: readonly string[] }): Promise<unknown> {
    const started = Date.now();
    this.unfit = true;
    return new Promise((resolve, reject) => {
      const settle = (outcome: () => void, answered: boolean) => {
        clearTimeout(timer);
        this.thread.off('message', onMessage).off('error', onError).off('exit', onExit);
        this.signal?.removeEventListener('abort', onAbort);
        this.remainingMs -= Date.now() - started;
        if (answered && !this.closed) this.unfit = false;
        outcome();
      };
      const onMessage = (answer: unknown) => settle(() => resolve(answer), true);
      const onError = (error: Error) => settle(() => reject(error), false);
      const onExit = () => settle(() => reject(new Error('the matching thread ended')), false);
      const onAbort = () => {
        this.stop();
        const reason: unknown = this.signal?.reason;
        settle(() => reject(reason instanceof Error ? reason : new Error('search cancelled')), false);
      };
      const timer = setTimeout(() => {
        this.stop();
        settle(() => reject(new MatchBudgetSpent()), false);
      }, Math.max(0, this.remainingMs));
      this.thread.on('message', onMessage).on('error', onError).on('exit', onExit);
      this.signal?.addEventListener('abort', onAbort, { once: true });
      this.thread.postMessage(message);
    });
  }
}
