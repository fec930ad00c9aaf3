// A script's tool call through the channel: its result comes back to the script, and a result only
// a person's approval gave marks the script's own result too (the script may print it).
import { createCodeCallChannel } from '../../../src/activities/code-call-channel';
import { createSecretRedactor } from '../../../src/environments/secret-redaction';
import { SqliteSessionStore } from '../../../src/store/sqlite-session-store';
import type { ExecuteToolInput } from '../../../src/workflows/session-types';

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
