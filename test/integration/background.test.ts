// Background processes in a whole session: started by the terminal tool, managed with the
// process tool, and announced to the model when they end (notify_on_complete).
import { connectHarness, toolResults, withScriptedSession, type Harness } from '../helpers/session-harness';

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(async () => {
  await harness.close();
});

test('a session waits for a notify_on_complete process and tells the model when it ends', async () => {
  const script = {
    turns: [
      { tool_calls: [{ name: 'terminal', arguments: { command: 'sleep 1; echo build-output; exit 3', background: true, notify_on_complete: true } }] },
      { content: 'The build runs in the background; I will report when it ends.' },
      { content: 'The build finished with exit code 3.' },
    ],
  };
  await withScriptedSession(harness, { script }, async ({ handle, store, model }) => {
    const result = await handle.result();
    expect(result).toMatchObject({ status: 'completed', answer: 'The build finished with exit code 3.', turns: 3 });
    const [started] = await toolResults(store, handle);
    expect(started).toMatchObject({ output: 'Background process started', exit_code: 0, notify_on_complete: true });
    const notified = model.requests[2]!.messages.at(-1)!;
    expect(notified.role).toBe('user');
    expect(String(notified.content)).toMatch(new RegExp(`^\\[IMPORTANT: Background process ${String(started!.session_id)} exited \\(exit code 3\\)`));
    expect(String(notified.content)).toContain('build-output');
  });
});

test('the model manages a background process with the process tool across turns', async () => {
  const script = {
    turns: [
      { tool_calls: [{ name: 'terminal', arguments: { command: 'while read line; do echo "echo: $line"; done', background: true } }] },
      { tool_calls: [{ name: 'process', arguments: { action: 'submit', session_id: '{{last.session_id}}', data: 'hello' } }] },
      { tool_calls: [{ name: 'process', arguments: { action: 'poll', session_id: '{{last.session_id}}' } }] },
      { tool_calls: [{ name: 'process', arguments: { action: 'list' } }] },
      { tool_calls: [{ name: 'process', arguments: { action: 'kill', session_id: '{{last.session_id}}' } }] },
      { content: 'noted' },
    ],
  };
  await withScriptedSession(harness, { script }, async ({ handle, store }) => {
    await handle.result();
    const [started, submitted, polled, listed, killed] = await toolResults(store, handle);
    expect(started).toMatchObject({ output: 'Background process started' });
    expect(submitted).not.toHaveProperty('error');
    expect(polled).toMatchObject({ session_id: started!.session_id, status: 'running' });
    expect(String(polled!.output_preview)).toContain('echo: hello');
    expect(JSON.stringify(listed)).toContain(String(started!.session_id));
    expect(killed).toMatchObject({ status: 'killed' });
  });
});
