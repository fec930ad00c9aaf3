// A script's tool call through the channel: its result comes back to the script, and a result only
// a person's approval gave marks the script's own result too (the script may print it).
import { getEventListeners, getMaxListeners } from 'node:events';
import { createCodeCallChannel } from '../../../src/activities/code-call-channel';
import { createSecretRedactor } from '../../../src/environments/secret-redaction';
import { SqliteSessionStore } from '../../../src/store/sqlite-session-store';
import type { ExecuteToolInput } from '../../../src/workflows/session-types';
import { waitFor } from '../../helpers/wait';

async function channelAnswering(sensitive: boolean) {
  const store = new SqliteSessionStore(':memory:');
  const input = { sessionId: 's', seq: 10, assistantSeq: 9, toolCallId: 'code-1', name: 'execute_code', innerCalls: { firstSeq: 11, count: 2 } } as unknown as ExecuteToolInput & {
    innerCalls: { firstSeq: number; count: number };
  };
  const channel = createCodeCallChannel({
    store,
    // The workflow's executeTool stores the inner call's result at the next seq.
    signalSession: async () => {
      await store.appendMessage('s', { seq: 12, role: 'tool', content: 'STRIPE_LIVE=x', toolCallId: 'inner', name: 'read_file', ...(sensitive ? { sensitive: true as const } : {}) });
    },
    redactor: createSecretRedactor(),
    input,
    workflowId: 'wf',
    sessionTools: ['read_file', 'execute_code'],
    signal: new AbortController().signal,
  });
  return { channel, store };
}

test("a script that called for a result only a person's approval gave carries that mark", async () => {
  const { channel, store } = await channelAnswering(true);
  expect(channel.sawSensitive()).toBe(false);
  expect(await channel.callTool('read_file', { path: '.env' })).toBe('STRIPE_LIVE=x');
  expect(channel.sawSensitive()).toBe(true);
  await store.close();
});

test('a script whose calls needed nobody stays unmarked', async () => {
  const { channel, store } = await channelAnswering(false);
  await channel.callTool('read_file', { path: 'notes.md' });
  expect(channel.sawSensitive()).toBe(false);
  await store.close();
});

test('a script may wait for all its calls at once without the worker warning of a listener leak', async () => {
  const store = new SqliteSessionStore(':memory:');
  const count = 20;
  const input = { sessionId: 's', seq: 10, assistantSeq: 9, toolCallId: 'code-1', name: 'execute_code', innerCalls: { firstSeq: 11, count } } as unknown as ExecuteToolInput & {
    innerCalls: { firstSeq: number; count: number };
  };
  const stop = new AbortController();
  const channel = createCodeCallChannel({ store, signalSession: async () => undefined, redactor: createSecretRedactor(), input, workflowId: 'wf', sessionTools: ['read_file'], signal: stop.signal });
  // Every call waits (nobody answers), listening for the cancellation, until the activity is cancelled.
  const calls = Array.from({ length: count }, (_, index) => channel.callTool('read_file', { path: `${index}.txt` }).catch(() => 'stopped'));
  try {
    await waitFor(() => getEventListeners(stop.signal, 'abort').length === count, { timeoutMs: 5000, what: 'every call waiting' });
    // Node warns (on the worker's stderr) once a signal has more listeners than its maximum.
    expect(getMaxListeners(stop.signal)).toBeGreaterThanOrEqual(count);
  } finally {
    stop.abort(new Error('cancelled'));
  }
  expect(await Promise.all(calls)).toEqual(Array.from({ length: count }, () => 'stopped'));
  await store.close();
});
