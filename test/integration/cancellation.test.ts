// A cancelled or terminated session stops the command it was running within seconds: the
// cancellation reaches the activity in a heartbeat response, which the worker no longer throttles.
import { connectHarness, expectCancelled, withScriptedSession, type Harness } from '../helpers/session-harness';
import { markedSleep, pidsRunning } from '../helpers/processes';
import { waitFor } from '../helpers/wait';

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(async () => {
  await harness.close();
});

function sleepingSession(sleep: string) {
  return {
    turns: [{ tool_calls: [{ name: 'terminal', arguments: { command: sleep } }] }, { content: 'never reached' }],
  };
}

/** Milliseconds from now until no process runs `commandLine` (bounded). */
async function msUntilGone(commandLine: string, timeoutMs: number): Promise<number> {
  const started = Date.now();
  await waitFor(() => pidsRunning(commandLine).length === 0, { timeoutMs, intervalMs: 20, what: `${commandLine} to die` });
  return Date.now() - started;
}

test('cancelling a session kills its running command within 2 seconds and the session ends cancelled', async () => {
  const sleep = markedSleep(60);
  await withScriptedSession(harness, { script: sleepingSession(sleep) }, async ({ handle, store }) => {
    await waitFor(() => pidsRunning(sleep).length > 0, { timeoutMs: 30_000, what: 'the command to start' });
    await handle.cancel();
    const elapsed = await msUntilGone(sleep, 10_000);
    expect(elapsed).toBeLessThan(2000);
    await expectCancelled(handle, store);
  });
});

test('terminating a session kills its running command within a few seconds', async () => {
  const sleep = markedSleep(60);
  await withScriptedSession(harness, { script: sleepingSession(sleep) }, async ({ handle }) => {
    await waitFor(() => pidsRunning(sleep).length > 0, { timeoutMs: 30_000, what: 'the command to start' });
    await handle.terminate('test');
    // The workflow is gone, so nothing is delivered: the worker hears NOT_FOUND on its next heartbeat.
    const elapsed = await msUntilGone(sleep, 15_000);
    expect(elapsed).toBeLessThan(3000);
  });
});
