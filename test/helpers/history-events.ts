// Readings of a workflow's history events that tests about limits share.
import { type temporal } from '@temporalio/proto';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** The most activities of `activityType` scheduled and not yet closed at any point of the events (of one or more runs). */
export function mostActivitiesPending(events: HistoryEvent[], activityType: string): number {
  let open = new Set<string>();
  let most = 0;
  for (const event of events) {
    // Each run's events are numbered from 1.
    if (String(event.eventId) === '1') open = new Set<string>();
    if (event.activityTaskScheduledEventAttributes?.activityType?.name === activityType) {
      open.add(String(event.eventId));
      most = Math.max(most, open.size);
    }
    const closed =
      event.activityTaskCompletedEventAttributes ?? event.activityTaskFailedEventAttributes ?? event.activityTaskTimedOutEventAttributes ?? event.activityTaskCanceledEventAttributes;
    if (closed) open.delete(String(closed.scheduledEventId));
  }
  return most;
}
