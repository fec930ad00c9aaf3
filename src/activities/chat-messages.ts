// Turns stored transcript messages into the chat-completions message format.
import type OpenAI from 'openai';
import type { StoredMessage } from '../store/session-store';

type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;

export function toChatMessages(messages: readonly StoredMessage[]): ChatMessage[] {
  return messages.map((message): ChatMessage => {
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
