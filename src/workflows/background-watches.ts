// Background processes started with notify_on_complete: each is watched by a long activity, and
// when it ends its notification waits here until the next model turn. A session whose model is
// done but whose watched processes still run waits for them instead of ending.
import { CancellationScope, condition } from '@temporalio/workflow';

export interface WatchCarryOver {
  watchedProcesses: string[];
  pendingNotifications: string[];
}

export class BackgroundWatches {
  private readonly watching = new Set<string>();
  private readonly notifications: string[];
  private readonly scope = new CancellationScope();

  constructor(
    carry: Partial<WatchCarryOver>,
    private readonly watch: (processId: string) => Promise<{ notification: string }>,
  ) {
    this.notifications = [...(carry.pendingNotifications ?? [])];
    for (const processId of carry.watchedProcesses ?? []) this.start(processId);
  }

  start(processId: string): void {
    if (this.watching.has(processId)) return;
    this.watching.add(processId);
    this.scope
      .run(() => this.watch(processId))
      .then((result) => this.notifications.push(result.notification))
      .catch(() => undefined) // cancelled at session end, or the watch gave up: nothing to say
      .finally(() => this.watching.delete(processId));
  }

  get outstanding(): number {
    return this.watching.size;
  }

  get hasNotifications(): boolean {
    return this.notifications.length > 0;
  }

  /** Notifications that arrived since the last call, oldest first. */
  take(): string[] {
    return this.notifications.splice(0);
  }

  /** Waits until a watched process ends (or none is watched any more). */
  async waitForNews(): Promise<void> {
    await condition(() => this.notifications.length > 0 || this.watching.size === 0);
  }

  cancelAll(): void {
    this.scope.cancel();
  }

  carryOver(): WatchCarryOver {
    return { watchedProcesses: [...this.watching], pendingNotifications: [...this.notifications] };
  }
}
