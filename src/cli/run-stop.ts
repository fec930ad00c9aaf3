// What stops a `run`, and how: the first Ctrl+C cancels the session (the in-process worker keeps
// serving so the cancellation completes and running commands are killed); a second one, or a
// cancellation that outlasts its grace period after SIGTERM, SIGHUP or the parent's death,
// quits at once after killing what this process started.
import os from 'node:os';

export type StopCause = 'SIGINT' | 'SIGTERM' | 'SIGHUP' | 'parent exited';

export interface RunStopOptions {
  /** Asks the session to cancel. */
  cancel(): Promise<void>;
  note(message: string): void;
  /** Kills and records what must not outlive this process; bounded by `cleanupTimeoutMs`. */
  cleanUp(cause: StopCause): Promise<void> | void;
  /** After SIGTERM, SIGHUP or the parent's death, how long the cancellation may take. */
  graceMs?: number;
  cleanupTimeoutMs?: number;
  /** How often to check that the parent process still exists. */
  parentCheckMs?: number;
}

export interface RunStopWatch {
  /** The exit code the stop asks for (128 + signal number), or undefined if nothing stopped the run. */
  readonly exitCode: number | undefined;
  dispose(): void;
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

export function exitCodeForStop(cause: StopCause): number {
  const signal = cause === 'parent exited' ? 'SIGHUP' : cause;
  return 128 + os.constants.signals[signal];
}

export function watchForStop(options: RunStopOptions): RunStopWatch {
  let first: StopCause | undefined;
  let quitting = false;
  let graceTimer: NodeJS.Timeout | undefined;

  const quitNow = async (cause: StopCause) => {
    if (quitting) return;
    quitting = true;
    const bound = new Promise<void>((resolve) => setTimeout(resolve, options.cleanupTimeoutMs ?? 3000).unref());
    await Promise.race([Promise.resolve().then(() => options.cleanUp(cause)).catch(() => undefined), bound]);
    process.exit(exitCodeForStop(first ?? cause));
  };

  const stop = (cause: StopCause) => {
    if (first) {
      void quitNow(cause);
      return;
    }
    first = cause;
    const again = cause === 'SIGINT' ? ' (Ctrl+C again to quit now)' : '';
    options.note(`Cancelling the session${cause === 'SIGINT' ? '' : ` (${cause})`}${again} ...`);
    options.cancel().catch(() => undefined);
    // Nobody is there to press Ctrl+C a second time: bound the wait.
    if (cause !== 'SIGINT') graceTimer = setTimeout(() => void quitNow(cause), options.graceMs ?? 10_000);
  };

  const handlers = SIGNALS.map((signal) => [signal, () => stop(signal)] as const);
  for (const [signal, handler] of handlers) process.on(signal, handler);
  // A parent that died re-parents us; a reader that went away breaks stdout.
  const parent = process.ppid;
  const parentCheck = setInterval(() => {
    if (process.ppid !== parent) stop('parent exited');
  }, options.parentCheckMs ?? 1000);
  parentCheck.unref();
  // (A closed terminal gives EIO; with a listener here, that is not an uncaught error either.)
  const onOutputError = (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE' || error.code === 'EIO') stop('parent exited');
  };
  process.stdout.on('error', onOutputError);
  process.stderr.on('error', onOutputError);

  return {
    get exitCode() {
      return first ? exitCodeForStop(first) : undefined;
    },
    dispose() {
      for (const [signal, handler] of handlers) process.off(signal, handler);
      clearInterval(parentCheck);
      if (graceTimer) clearTimeout(graceTimer);
      process.stdout.off('error', onOutputError);
      process.stderr.off('error', onOutputError);
    },
  };
}
