// Turns stored transcript messages into the chat-completions message format. Records of calls an
// execute_code script made (an assistant-role message with a `name`, and the tool messages that
// answer its calls) are for operators: the model saw the script's result, not its inner calls.
import type OpenAI from 'openai';
import type { StoredMessage } from '../store/session-store';

type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;

export function toChatMessages(messages: readonly StoredMessage[]): ChatMessage[] {
  const nestedCalls = new Set(messages.filter(isNestedRecord).flatMap((message) => (message.toolCalls ?? []).map((call) => call.id)));
  return messages
    .filter((message) => !isNestedRecord(message) && !(message.role === 'tool' && nestedCalls.has(message.toolCallId ?? '')))
    .map((message): ChatMessage => {
      switch (message.role) {
        case 'system':
          return { role: 'system', content: message.content ?? '' };
        case 'user':
          return { role: 'user', content: message.content ?? '' };
        case 'tool':
          return { role: 'tool', tool_call_id: message.toolCallId ?? '', content: message.content ?? '' };
        case 'assistant':
          return {
            role: 'assistant',
            content: message.content,
            ...(message.toolCalls?.length
              ? {
                  tool_calls: message.toolCalls.map((call) => ({
                    id: call.id,
                    type: 'function' as const,
                    function: { name: call.name, arguments: call.arguments },
                  })),
                }
              : {}),
          };
      }
    });
}

/** An assistant-role record a tool wrote (the model's own messages have no name). */
export function isNestedRecord(message: StoredMessage): boolean {
  return message.role === 'assistant' && message.name !== undefined && message.name !== null;
}
