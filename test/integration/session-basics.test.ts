// Whole sessions on a real Temporal server, with the real openai client talking HTTP to a
// scripted model server.
import { connectHarness, withScriptedSession, type Harness } from '../helpers/session-harness';

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(async () => {
  await harness.close();
});

test('a session runs a shell command and returns the final answer', async () => {
  const script = {
    turns: [
      { tool_calls: [{ name: 'terminal', arguments: { command: 'echo hello-from-terminal' } }] },
      { content: 'The command printed hello-from-terminal.' },
    ],
  };
  await withScriptedSession(harness, { script }, async ({ handle, store, model }) => {
    const result = await handle.result();
    expect(result).toMatchObject({ status: 'completed', answer: 'The command printed hello-from-terminal.', turns: 2, toolCalls: 1 });
    const sessionId = (await handle.describe()).workflowId.replace('hermes-session-', '');
    const transcript = await store.getMessages(sessionId);
    expect(transcript.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant']);
    expect(JSON.parse(transcript[3]!.content!)).toMatchObject({ output: 'hello-from-terminal', exit_code: 0, error: null });
    // The model saw the tool result on its second turn.
    const secondRequest = model.requests[1]!;
    expect(secondRequest.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_0_0' });
  });
});
