import { ActivityCancelledError, ActivityNotFoundError, ActivityPausedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { HandedActivities } from '../../../src/activities/handed-activities';
import { silentLogger } from '../../../src/logging';
import { waitFor } from '../../helpers/wait';

/** A completion client that records every call; the next heartbeat fails with `heartbeatError` when set. */
function fakeCompletion() {
  const calls: { kind: string; token: string; value?: unknown }[] = [];
  let heartbeatError: Error | undefined;
  const token = (taskToken: Uint8Array) => Buffer.from(taskToken).toString();
  return {
    calls,
    failHeartbeatsWith: (error: Error) => (heartbeatError = error),
    client: {
      heartbeat: async (taskToken: Uint8Array, details?: unknown) => {
        calls.push({ kind: 'heartbeat', token: token(taskToken), value: details });
        if (heartbeatError) throw heartbeatError;
      },
      complete: async (taskToken: Uint8Array, result: unknown) => void calls.push({ kind: 'complete', token: token(taskToken), value: result }),
      fail: async (taskToken: Uint8Array, error: unknown) => void calls.push({ kind: 'fail', token: token(taskToken), value: error }),
      reportCancellation: async (taskToken: Uint8Array) => void calls.push({ kind: 'cancelled', token: token(taskToken) }),
    },
  };
}

const tokenOf = (text: string) => Buffer.from(text);
const kinds = (calls: { kind: string }[]) => calls.filter((call) => call.kind !== 'heartbeat').map((call) => call.kind);

/** A wait that ends when told to, or rejects when its signal aborts. */
function controllableWait() {
  let finish!: (value: unknown) => void;
  let signal!: AbortSignal;
  const run = (given: AbortSignal) => {
    signal = given;
    return new Promise((resolve, reject) => {
      finish = resolve;
      given.addEventListener('abort', () => reject(given.reason as Error));
    });
  };
  return { run, finish: (value: unknown) => finish(value), signal: () => signal };
}

test('a watch taken over heartbeats until its process ends, then completes its activity with the result', async () => {
  const completion = fakeCompletion();
  const watches = new HandedActivities(completion.client, { heartbeatMs: 10, logger: silentLogger });
  const wait = controllableWait();
  watches.take(tokenOf('a'), { what: 'watch', details: { processId: 'proc_a' } }, wait.run);
  await waitFor(() => completion.calls.filter((call) => call.kind === 'heartbeat').length >= 2, { timeoutMs: 5000, what: 'heartbeats' });
  expect(completion.calls[0]).toEqual({ kind: 'heartbeat', token: 'a', value: { processId: 'proc_a' } });
  wait.finish({ notification: 'ended' });
  await waitFor(() => kinds(completion.calls).length === 1, { timeoutMs: 5000, what: 'the completion' });
  expect(completion.calls.find((call) => call.kind === 'complete')).toEqual({ kind: 'complete', token: 'a', value: { notification: 'ended' } });
  const beats = completion.calls.length;
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(completion.calls.length).toBe(beats);
});

test('a watch whose wait fails fails its activity, to be retried', async () => {
  const completion = fakeCompletion();
  const watches = new HandedActivities(completion.client, { heartbeatMs: 1000, logger: silentLogger });
  const failure = new Error('connection lost');
  watches.take(tokenOf('b'), { what: 'watch', details: {} }, () => Promise.reject(failure));
  await waitFor(() => kinds(completion.calls).length === 1, { timeoutMs: 5000, what: 'the failure' });
  expect(completion.calls).toEqual([{ kind: 'fail', token: 'b', value: failure }]);
});

/** What a watch whose heartbeats the server answers with `error` does, once its wait has stopped. */
async function answeredWith(error: Error): Promise<string[]> {
  const completion = fakeCompletion();
  const watches = new HandedActivities(completion.client, { heartbeatMs: 10, logger: silentLogger });
  const wait = controllableWait();
  completion.failHeartbeatsWith(error);
  watches.take(tokenOf('c'), { what: 'watch', details: {} }, wait.run);
  await waitFor(() => wait.signal()?.aborted, { timeoutMs: 5000, what: 'the wait to stop' });
  await new Promise((resolve) => setTimeout(resolve, 30));
  return kinds(completion.calls);
}

test('a watch the session cancelled stops waiting and says so', async () => {
  expect(await answeredWith(new ActivityCancelledError('cancelled'))).toEqual(['cancelled']);
});

test('a watch the server no longer has (its session ended) just stops', async () => {
  expect(await answeredWith(new ActivityNotFoundError('not found'))).toEqual([]);
});

test('a paused watch ends its attempt; the server runs it again when it is unpaused', async () => {
  expect(await answeredWith(new ActivityPausedError('paused'))).toEqual(['fail']);
});

test('a stopping worker gives every watch back at once, as a retryable failure, and takes no more', async () => {
  const completion = fakeCompletion();
  const watches = new HandedActivities(completion.client, { heartbeatMs: 1000, logger: silentLogger });
  const waits = [controllableWait(), controllableWait()];
  watches.take(tokenOf('f'), { what: 'watch', details: {} }, waits[0]!.run);
  watches.take(tokenOf('g'), { what: 'watch', details: {} }, waits[1]!.run);
  expect(watches.accepting).toBe(true);
  await watches.releaseAll();
  expect(watches.accepting).toBe(false);
  expect(waits.every((wait) => wait.signal().aborted)).toBe(true);
  const failures = completion.calls.filter((call) => call.kind === 'fail');
  expect(failures.map((call) => call.token).sort()).toEqual(['f', 'g']);
  for (const failure of failures) expect(failure.value).toMatchObject({ type: 'WorkerStopped', nonRetryable: false });
  expect(failures[0]!.value).toBeInstanceOf(ApplicationFailure);
  // The aborted waits do not fail their activities a second time.
  await new Promise((resolve) => setTimeout(resolve, 30));
  expect(kinds(completion.calls)).toEqual(['fail', 'fail']);
});

test("the work's own heartbeats go out at once with its details, and a burst of them sends only the latest after", async () => {
  const completion = fakeCompletion();
  const handed = new HandedActivities(completion.client, { heartbeatMs: 60_000, logger: silentLogger });
  const wait = controllableWait();
  handed.take(tokenOf('h'), { what: 'script', details: {} }, (signal, heartbeat) => {
    for (const step of [1, 2, 3]) heartbeat({ step });
    return wait.run(signal);
  });
  await waitFor(() => completion.calls.length >= 2, { timeoutMs: 5000, what: 'the second beat' });
  wait.finish('done');
  await waitFor(() => kinds(completion.calls).length === 1, { timeoutMs: 5000, what: 'the completion' });
  expect(completion.calls.filter((call) => call.kind === 'heartbeat').map((call) => call.value)).toEqual([{ step: 1 }, { step: 3 }]);
});

test('a stopping worker gives running work its grace time to end, and what only waits goes back at once', async () => {
  const completion = fakeCompletion();
  const handed = new HandedActivities(completion.client, { heartbeatMs: 60_000, logger: silentLogger });
  const [script, watch, late] = [controllableWait(), controllableWait(), controllableWait()];
  handed.take(tokenOf('s'), { what: 'script', details: {}, finishOnStop: true }, script.run);
  handed.take(tokenOf('w'), { what: 'watch', details: {} }, watch.run);
  handed.take(tokenOf('l'), { what: 'script', details: {}, finishOnStop: true }, late.run);
  setTimeout(() => script.finish('done'), 20);
  const started = Date.now();
  await handed.releaseAll(300);
  expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  expect(completion.calls.filter((call) => call.kind !== 'heartbeat')).toEqual([
    { kind: 'fail', token: 'w', value: expect.objectContaining({ type: 'WorkerStopped' }) },
    { kind: 'complete', token: 's', value: 'done' },
    { kind: 'fail', token: 'l', value: expect.objectContaining({ type: 'WorkerStopped' }) },
  ]);
  expect([watch.signal().aborted, late.signal().aborted]).toEqual([true, true]);
});
