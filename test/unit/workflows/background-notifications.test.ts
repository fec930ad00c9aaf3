// What a background process's end puts into the session: bounded, whatever the model ran.
import { formatProcessNotification } from '../../../src/activities/background-activities';
import { MAX_PENDING_NOTIFICATION_CHARS, notificationToKeep } from '../../../src/workflows/background-watches';

const ended = (index: number, tail = 'x'.repeat(2000)) => formatProcessNotification({ processId: `proc_${index}`, command: `sleep 1 # ${index}`, exitCode: 0, outputTail: tail });

test('notifications wait whole until the pending ones fill the budget, then keep their first line and say where the output is', () => {
  const pending: string[] = [];
  for (let index = 0; index < 500; index++) pending.push(notificationToKeep(pending, ended(index)));
  const whole = pending.filter((text) => text.includes('Output:\n'));
  expect(whole.length).toBe(Math.floor(MAX_PENDING_NOTIFICATION_CHARS / ended(0).length));
  expect(pending.at(-1)).toBe("[IMPORTANT: Background process proc_499 completed normally (exit code 0).\nIts output is not shown here (too many notifications at once): read it with the process tool's log action.]");
  expect(pending.join('\n\n').length).toBeLessThan(MAX_PENDING_NOTIFICATION_CHARS + 500 * 250);
});
