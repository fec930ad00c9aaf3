// Activities that wait without holding a worker slot. Some activities wait far longer than they
// work: a watch waits for its process, an execute_code script for its own tool calls (and their
// approvals). Held in the worker, each kept one of its activity slots the whole time: four
// watched processes on a worker of three slots left none for any other call, and scripts filling
// every slot waited for ever on calls that needed a slot to run. Such an activity now hands itself
// to this worker-wide set and returns at once (Temporal's asynchronous completion); the set
// heartbeats it through the client and completes it when its work ends. A worker that stops gives
// what it holds back to the server, to be taken up again by another worker.
import { setTimeout as sleep } from 'node:timers/promises';
import { ActivityCancelledError, ActivityNotFoundError, ActivityPausedError, ActivityResetError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { Logger } from '../logging';

/** What a handed activity needs of Temporal's asynchronous completion (the client's `activity`). */
export interface ActivityCompletion {
  heartbeat(taskToken: Uint8Array, details?: unknown): Promise<void>;
  complete(taskToken: Uint8Array, result: unknown): Promise<void>;
  fail(taskToken: Uint8Array, error: unknown): Promise<void>;
  reportCancellation(taskToken: Uint8Array): Promise<void>;
}

export interface HandOver {
  /** Names the work in log lines and in the failure a stopping worker gives back ("background process watch"). */
  what: string;
  /** Sent with each heartbeat until the work sends others. */
  details: Record<string, unknown>;
  /** How often to heartbeat; the set's default when absent. */
  heartbeatMs?: number;
  /** Work that is running, not only waiting: a stopping worker gives it its grace time to end first. */
  finishOnStop?: boolean;
}

/** Sends a heartbeat with these details now (the work's progress; a retry reads the last ones). */
export type HandedHeartbeat = (details: Record<string, unknown>) => void;

/** Beats asked for faster than this are sent as one (the SDK throttles an activity's own likewise). */
const MIN_BEAT_SPACING_MS = 1000;

interface Handed {
  taskToken: Uint8Array;
  what: string;
  details: Record<string, unknown>;
  abort: AbortController;
  beating: boolean;
  beatAgain: boolean;
  /** The work beat since the timer's last tick: the tick need not. */
  beatLately: boolean;
  finishOnStop: boolean;
  /** Settles once the work ended and its activity was told. */
  ended: Promise<void>;
}

export class HandedActivities {
  private readonly handed = new Set<Handed>();
  private stopped = false;

  constructor(
    private readonly completion: ActivityCompletion,
    private readonly options: { heartbeatMs: number; logger: Logger },
  ) {}

  /** False once the worker stopped: work then stays in its activity. */
  get accepting(): boolean {
    return !this.stopped;
  }

  /**
   * Takes over the activity of `taskToken`: `work` runs until done (or until its signal aborts)
   * and its result completes the activity; a failure fails it, to be retried as any failure is.
   */
  take(taskToken: Uint8Array, handOver: HandOver, work: (signal: AbortSignal, heartbeat: HandedHeartbeat) => Promise<unknown>): void {
    const entry: Handed = {
      taskToken,
      what: handOver.what,
      details: handOver.details,
      abort: new AbortController(),
      beating: false,
      beatAgain: false,
      beatLately: false,
      finishOnStop: handOver.finishOnStop ?? false,
      ended: Promise.resolve(),
    };
    this.handed.add(entry);
    const timer = setInterval(() => {
      if (!entry.beatLately) void this.beat(entry);
      entry.beatLately = false;
    }, handOver.heartbeatMs ?? this.options.heartbeatMs);
    timer.unref();
    const heartbeat: HandedHeartbeat = (details) => {
      entry.details = details;
      entry.beatLately = true;
      void this.beat(entry);
    };
    entry.ended = work(entry.abort.signal, heartbeat)
      .then(
        (result) => this.completion.complete(taskToken, result),
        (error: unknown) => (entry.abort.signal.aborted ? undefined : this.completion.fail(taskToken, error)),
      )
      .catch((error: unknown) => {
        if (!(error instanceof ActivityNotFoundError)) this.options.logger.warn(`Could not report the end of a ${entry.what}: ${describe(error)}`);
      })
      .finally(() => {
        clearInterval(timer);
        this.handed.delete(entry);
      });
  }

  /**
   * The worker stopped: each activity goes back to the server (a failed attempt, retried), not
   * after its heartbeat timeout. What only waits goes back at once; work that runs first gets
   * `graceMs` to end, as the worker's own activities do.
   */
  async releaseAll(graceMs = 0): Promise<void> {
    this.stopped = true;
    const running = [...this.handed].filter((entry) => entry.finishOnStop);
    await this.giveBack([...this.handed].filter((entry) => !entry.finishOnStop));
    // The grace timer is unref'd: it never keeps a worker process that is done from exiting.
    if (graceMs > 0 && running.length) await Promise.race([Promise.all(running.map((entry) => entry.ended)), sleep(graceMs, undefined, { ref: false })]);
    await this.giveBack([...this.handed]);
  }

  private async giveBack(entries: Handed[]): Promise<void> {
    for (const entry of entries) entry.abort.abort(new Error('the worker stopped'));
    await Promise.all(
      entries.map((entry) => {
        const stopped = ApplicationFailure.retryable(`The worker running this ${entry.what} stopped; another takes it over`, 'WorkerStopped');
        return this.completion.fail(entry.taskToken, stopped).catch(() => undefined);
      }),
    );
  }

  /**
   * Alive to the server, with the latest details; work the server no longer wants (cancelled,
   * closed, paused or reset) stops here. One beat at a time: a beat asked for meanwhile follows it.
   */
  private async beat(entry: Handed): Promise<void> {
    if (entry.beating) {
      entry.beatAgain = true;
      return;
    }
    entry.beating = true;
    try {
      for (;;) {
        entry.beatAgain = false;
        const sentAt = Date.now();
        await this.completion.heartbeat(entry.taskToken, entry.details);
        if (!entry.beatAgain || entry.abort.signal.aborted) break;
        await sleep(Math.max(0, sentAt + MIN_BEAT_SPACING_MS - Date.now()));
      }
    } catch (error) {
      await this.interrupted(entry, error);
    } finally {
      entry.beating = false;
    }
  }

  private async interrupted(entry: Handed, error: unknown): Promise<void> {
    if (entry.abort.signal.aborted) return;
    if (error instanceof ActivityCancelledError) {
      entry.abort.abort(error);
      await this.completion.reportCancellation(entry.taskToken).catch(() => undefined);
    } else if (error instanceof ActivityNotFoundError) {
      entry.abort.abort(error);
    } else if (error instanceof ActivityPausedError || error instanceof ActivityResetError) {
      entry.abort.abort(error);
      await this.completion.fail(entry.taskToken, ApplicationFailure.retryable(`The ${entry.what} was ${describe(error)}`, 'Interrupted')).catch(() => undefined);
    }
    // Anything else (the server briefly out of reach) is tried again at the next beat.
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
