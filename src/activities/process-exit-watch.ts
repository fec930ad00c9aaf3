// One look a beat for all the watched background processes of an environment. Each watch used to
// poll its own process every two seconds, a command each on exec-based backends: 256 processes
// watched over ssh or docker meant 128 commands a second through the session's connection or
// daemon, ahead of the model's own. Watches in this worker now wait together.
import { runningOf } from '../environments/background/running-processes';
import type { EnvironmentHandle, TerminalEnvironment } from '../environments/terminal-environment';

interface Waiter {
  processId: string;
  ended: () => void;
  failed: (error: Error) => void;
}

interface Group {
  handle: EnvironmentHandle;
  waiters: Set<Waiter>;
  /** Attached at the first look and kept while the looks succeed, as each watch kept its own. */
  environment?: TerminalEnvironment;
}

export class ProcessExitWatch {
  private readonly groups = new Map<string, Group>();

  constructor(
    private readonly attach: (handle: EnvironmentHandle) => Promise<TerminalEnvironment>,
    private readonly intervalMs: number,
  ) {}

  /**
   * Resolves once the process no longer runs (it ended, or is unknown here), looked at with every
   * other process of its environment; rejects when that look fails or `signal` aborts.
   */
  ended(handle: EnvironmentHandle, processId: string, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal.aborted) return reject(asError(signal.reason));
      const key = environmentKey(handle);
      let group = this.groups.get(key);
      const starting = !group;
      if (!group) this.groups.set(key, (group = { handle, waiters: new Set() }));
      const members = group.waiters;
      const onAbort = () => settle(() => reject(asError(signal.reason)));
      const settle = (then: () => void) => {
        members.delete(waiter);
        signal.removeEventListener('abort', onAbort);
        then();
      };
      const waiter: Waiter = { processId, ended: () => settle(resolve), failed: (error) => settle(() => reject(error)) };
      members.add(waiter);
      signal.addEventListener('abort', onAbort);
      if (starting) void this.watch(key, group);
    });
  }

  /** Looks every beat while anyone waits; the first look is a beat away (a watch looks once itself first). */
  private async watch(key: string, group: Group): Promise<void> {
    while (group.waiters.size) {
      // Never what keeps a process alive: a worker that stopped without giving its watches back exits all the same.
      await new Promise((resolve) => setTimeout(resolve, this.intervalMs).unref());
      const waiters = [...group.waiters];
      if (!waiters.length) break;
      try {
        const environment = (group.environment ??= await this.attach(group.handle));
        const running = await runningOf(environment.background, [...new Set(waiters.map((waiter) => waiter.processId))]);
        for (const waiter of waiters) if (!running.has(waiter.processId)) waiter.ended();
      } catch (error) {
        group.environment = undefined;
        // Each watch fails as its own poll did, and its activity's retry starts a new look.
        for (const waiter of waiters) waiter.failed(asError(error));
      }
    }
    if (this.groups.get(key) === group) this.groups.delete(key);
  }
}

/** One group per backend instance and session: the handle's cwd follows `cd` and does not matter here. */
function environmentKey(handle: EnvironmentHandle): string {
  return JSON.stringify([handle.backend, handle.id ?? '', handle.sessionId ?? '']);
}

/** An activity's cancellation reason is a CancelledFailure; anything else is wrapped. */
function asError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(String(reason));
}
