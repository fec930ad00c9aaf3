// Temporal's own floor for the session benchmarks: the same shapes as a session with nothing of
// ours in them (trivial activities), on the same server, measured in the same run.
import { condition, defineUpdate, proxyActivities, setHandler } from '@temporalio/workflow';
import type { FloorActivities } from './floor-activities';

const wakeUpdate = defineUpdate<void>('wake');

const { noop, sleepOneSecond, askModel } = proxyActivities<FloorActivities>({ startToCloseTimeout: '1 minute' });

/** `turns` times two activity round trips: what one model call plus one tool call cost at least. */
export async function floorTurns(turns: number): Promise<void> {
  for (let turn = 0; turn < turns; turn++) {
    await noop();
    await noop();
  }
}

/**
 * `turns` times a bare model request and a trivial activity: the same model round trip a turn
 * makes, with none of the session's own work around it.
 */
export async function floorModelTurns(turns: number, modelUrl: string): Promise<void> {
  for (let turn = 0; turn < turns; turn++) {
    await askModel(modelUrl);
    await noop();
  }
}

/** `calls` one-second activities at once. */
export async function floorParallel(calls: number): Promise<void> {
  await Promise.all(Array.from({ length: calls }, () => sleepOneSecond()));
}

/**
 * Waits for a `wake` update, then runs two activities: what a parked session costs at least, and
 * what resuming one does at least (the decision applied, the command run, one model turn).
 */
export async function floorParked(): Promise<void> {
  let woken = false;
  setHandler(wakeUpdate, () => {
    woken = true;
  });
  await condition(() => woken);
  await noop();
  await noop();
}
