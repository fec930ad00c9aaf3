// Background processes started with notify_on_complete: each is watched by a long activity, and
// when it ends its notification waits here until the next model turn. A session whose model is
// done but whose watched processes still run waits for them instead of ending. At most so many
// watches run at once: a model starting thousands of processes would otherwise pass the server's
// 2,000 pending activities per workflow, and every task after that fails. The others are watched
// as slots free; a process that ended meanwhile is reported at once.
import { CancellationScope, condition } from '@temporalio/workflow';
import { CallSlots } from './call-slots';

/**
 * Notifications waiting for the next turn, in characters: they go to the model in one message and
 * into each continue-as-new, both limited to 2 MB by Temporal. Past this, a notification keeps only
 * its first line (which process, how it ended); its output stays readable with the process tool.
 */
export const MAX_PENDING_NOTIFICATION_CHARS = 200_000;

export interface WatchCarryOver {
  watchedProcesses: string[];
  pendingNotifications: string[];
}

export interface WatchLimit {
  /** Watches running at once, at most (session.max_parallel_watches). */
  atOnce: number;
  /** Whether the limit holds here: false in histories recorded before it, which started every watch at once. */
  holds: () => boolean;
}

export class BackgroundWatches {
  private readonly watching = new Set<string>();
  private readonly notifications: string[];
  private readonly scope = new CancellationScope();
  private readonly slots: CallSlots;

  constructor(
    carry: Partial<WatchCarryOver>,
    private readonly watch: (processId: string) => Promise<{ notification: string }>,
    private readonly limit: WatchLimit,
  ) {
    this.slots = new CallSlots(limit.atOnce);
    this.notifications = [...(carry.pendingNotifications ?? [])];
    for (const processId of carry.watchedProcesses ?? []) this.start(processId);
  }

  start(processId: string): void {
    if (this.watching.has(processId)) return;
    this.watching.add(processId);
    const watch = () => this.watch(processId);
    // Asked only once the slots are full: histories that never filled them replay as before.
    const unbounded = this.slots.full && !this.limit.holds();
    this.scope
      .run(unbounded ? watch : () => this.slots.run(watch))
      .then((result) => this.receive(result.notification))
      .catch(() => undefined) // cancelled at session end, or the watch gave up: nothing to say
      .finally(() => this.watching.delete(processId));
  }

  private receive(notification: string): void {
    this.notifications.push(notificationToKeep(this.notifications, notification));
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

/** The notification as it may wait beside `pending`: whole while they fit the budget, else its first line. */
export function notificationToKeep(pending: readonly string[], notification: string): string {
  const used = pending.reduce((total, text) => total + text.length, 0);
  if (used + notification.length <= MAX_PENDING_NOTIFICATION_CHARS) return notification;
  const firstLine = notification.split('\n', 1)[0]?.slice(0, 300) ?? '';
  return `${firstLine}\nIts output is not shown here (too many notifications at once): read it with the process tool's log action.]`;
}
