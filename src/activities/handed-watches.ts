// Watches that wait without holding a worker slot. A watch of a running process used to stay an
// activity in the worker for as long as the process ran: four watched processes on a worker of
// three slots left none for any other call, of that session or any other. Now the activity hands
// itself to this worker-wide set and returns at once (Temporal's asynchronous completion); the set
// heartbeats it through the client and completes it when the process ends. A worker that stops
// gives its watches back to the server, to be taken up again by another worker.
import { ActivityCancelledError, ActivityNotFoundError, ActivityPausedError, ActivityResetError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { Logger } from '../logging';

/** What a watch needs of Temporal's asynchronous completion (the client's `activity`). */
export interface WatchCompletion {
  heartbeat(taskToken: Uint8Array, details?: unknown): Promise<void>;
  complete(taskToken: Uint8Array, result: unknown): Promise<void>;
  fail(taskToken: Uint8Array, error: unknown): Promise<void>;
  reportCancellation(taskToken: Uint8Array): Promise<void>;
}

interface Handed {
  taskToken: Uint8Array;
  abort: AbortController;
}

export class HandedWatches {
  private readonly handed = new Set<Handed>();
  private stopped = false;

  constructor(
    private readonly completion: WatchCompletion,
    private readonly options: { heartbeatMs: number; logger: Logger },
  ) {}

  /** False once the worker stopped: the watch then stays in its activity. */
  get accepting(): boolean {
    return !this.stopped;
  }

  /**
   * Takes over the activity of `taskToken`: `untilEnded` waits for the process (until `signal`
   * aborts) and its result completes the activity; a failure fails it, to be retried.
   */
  take(taskToken: Uint8Array, details: Record<string, unknown>, untilEnded: (signal: AbortSignal) => Promise<unknown>): void {
    const entry: Handed = { taskToken, abort: new AbortController() };
    this.handed.add(entry);
    const timer = setInterval(() => void this.beat(entry, details), this.options.heartbeatMs);
    timer.unref();
    untilEnded(entry.abort.signal)
      .then(
        (result) => this.completion.complete(taskToken, result),
        (error: unknown) => (entry.abort.signal.aborted ? undefined : this.completion.fail(taskToken, error)),
      )
      .catch((error: unknown) => {
        if (!(error instanceof ActivityNotFoundError)) this.options.logger.warn(`Could not report a background process watch: ${describe(error)}`);
      })
      .finally(() => {
        clearInterval(timer);
        this.handed.delete(entry);
      });
  }

  /** The worker stopped: each watch goes back to the server now (a failed attempt, retried), not after its heartbeat timeout. */
  async releaseAll(): Promise<void> {
    this.stopped = true;
    const entries = [...this.handed];
    for (const entry of entries) entry.abort.abort(new Error('the worker stopped'));
    const stopped = ApplicationFailure.retryable('The worker watching this background process stopped; another takes the watch over', 'WorkerStopped');
    await Promise.all(entries.map((entry) => this.completion.fail(entry.taskToken, stopped).catch(() => undefined)));
  }

  /** Alive to the server; a watch the server no longer wants (cancelled, closed, paused or reset) stops here. */
  private async beat(entry: Handed, details: Record<string, unknown>): Promise<void> {
    try {
      await this.completion.heartbeat(entry.taskToken, details);
    } catch (error) {
      if (entry.abort.signal.aborted) return;
      if (error instanceof ActivityCancelledError) {
        entry.abort.abort(error);
        await this.completion.reportCancellation(entry.taskToken).catch(() => undefined);
      } else if (error instanceof ActivityNotFoundError) {
        entry.abort.abort(error);
      } else if (error instanceof ActivityPausedError || error instanceof ActivityResetError) {
        entry.abort.abort(error);
        await this.completion.fail(entry.taskToken, ApplicationFailure.retryable(`The watch was ${describe(error)}`, 'WatchInterrupted')).catch(() => undefined);
      }
      // Anything else (the server briefly out of reach) is tried again at the next beat.
    }
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
