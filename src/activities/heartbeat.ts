// Keeps a long activity alive in Temporal's eyes: heartbeats on a timer (so a silent command
// does not look dead) and whenever progress changes. Heartbeats also carry cancellation in.
import { Context } from '@temporalio/activity';

/** How often a running activity tells the server it is alive (and hears of a cancellation). */
export const HEARTBEAT_INTERVAL_MS = 1000;

export interface HeartbeatLoop {
  /** Record new details and heartbeat now (the SDK throttles what reaches the server). */
  update(details: Record<string, unknown>): void;
  stop(): void;
}

/**
 * `immediate` sends the first heartbeat now: use it when the details must reach the server
 * before work starts (a retry reads them to learn whether the work began).
 */
export function startHeartbeat(initial: Record<string, unknown> = {}, options: { immediate?: boolean } = {}): HeartbeatLoop {
  const context = Context.current();
  let details = initial;
  const beat = () => {
    try {
      context.heartbeat(details);
    } catch {
      // Heartbeating can fail while the worker shuts down; the activity's own outcome decides.
    }
  };
  // Cancellation reaches an activity only in a heartbeat's response, so the beat is frequent:
  // once a second (the worker's throttle lets it through, see worker.ts), well inside the timeout.
  const timeoutMs = context.info.heartbeatTimeoutMs;
  const intervalMs = Math.max(250, Math.min(HEARTBEAT_INTERVAL_MS, timeoutMs ? timeoutMs / 3 : HEARTBEAT_INTERVAL_MS));
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
