// What the model is sent from the transcript: an execute_code script's own calls (a named
// assistant-role record and the tool messages answering it) are for operators, not the model.
import { toChatMessages } from '../../../src/activities/chat-messages';
import type { StoredMessage } from '../../../src/store/session-store';

const at = (seq: number, message: Omit<StoredMessage, 'seq' | 'createdAt'>): StoredMessage => ({ seq, createdAt: '2026-01-01T00:00:00Z', ...message });

it('leaves out the nested records of a script and keeps the script call and its result', () => {
  const transcript = [
    at(0, { role: 'system', content: 'sys' }),
    at(1, { role: 'user', content: 'task' }),
    at(2, { role: 'assistant', content: null, toolCalls: [{ id: 'call_1', name: 'execute_code', arguments: '{}' }] }),
    at(3, { role: 'tool', content: '{"status":"success"}', toolCallId: 'call_1', name: 'execute_code' }),
    at(4, { role: 'assistant', content: null, name: 'execute_code', toolCalls: [{ id: 'call_1.code-0', name: 'read_file', arguments: '{"path":"a"}' }] }),
    at(5, { role: 'tool', content: '{"content":"x"}', toolCallId: 'call_1.code-0', name: 'read_file' }),
  ];
  expect(toChatMessages(transcript)).toEqual([
    { role: 'system', content: 'sys' },
    { role: 'user', content: 'task' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'execute_code', arguments: '{}' } }] },
    { role: 'tool', tool_call_id: 'call_1', content: '{"status":"success"}' },
  ]);
});
