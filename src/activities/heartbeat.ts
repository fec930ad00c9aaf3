// Keeps a long activity alive in Temporal's eyes: heartbeats on a timer (so a silent command
// does not look dead) and whenever progress changes. Heartbeats also carry cancellation in.
import { Context } from '@temporalio/activity';

/** How often a running activity tells the server it is alive (and hears of a cancellation). */
export const HEARTBEAT_INTERVAL_MS = 1000;

/** Where beats go: the running activity's context, or the set an activity was handed to (handed-activities.ts). */
export interface HeartbeatSink {
  heartbeat(details: Record<string, unknown>): void;
  heartbeatTimeoutMs?: number;
}

export interface HeartbeatLoop {
  /** Record new details and heartbeat now (the SDK throttles what reaches the server). */
  update(details: Record<string, unknown>): void;
  stop(): void;
}

/**
 * `immediate` sends the first heartbeat now: use it when the details must reach the server
 * before work starts (a retry reads them to learn whether the work began).
 */
export function startHeartbeat(initial: Record<string, unknown> = {}, options: { immediate?: boolean; sink?: HeartbeatSink } = {}): HeartbeatLoop {
  const sink = options.sink ?? activitySink();
  let details = initial;
  const beat = () => {
    try {
      sink.heartbeat(details);
    } catch {
      // Heartbeating can fail while the worker shuts down; the activity's own outcome decides.
    }
  };
  // Cancellation reaches an activity only in a heartbeat's response, so the beat is frequent:
  // once a second (the worker's throttle lets it through, see worker.ts), well inside the timeout.
  const intervalMs = heartbeatIntervalMs(sink.heartbeatTimeoutMs);
  const timer = setInterval(beat, intervalMs);
  if (options.immediate) beat();
  return {
    update(next) {
      details = { ...details, ...next };
      beat();
    },
    stop() {
      clearInterval(timer);
    },
  };
}

/** A beat well inside the heartbeat timeout, and at least once a second. */
export function heartbeatIntervalMs(timeoutMs: number | undefined): number {
  return Math.max(250, Math.min(HEARTBEAT_INTERVAL_MS, timeoutMs ? timeoutMs / 3 : HEARTBEAT_INTERVAL_MS));
}

function activitySink(): HeartbeatSink {
  const context = Context.current();
  return { heartbeat: (details) => context.heartbeat(details), heartbeatTimeoutMs: context.info.heartbeatTimeoutMs };
}
