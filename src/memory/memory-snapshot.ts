// The memory a new session starts with: taken once, when the session's system prompt is written,
// and never refreshed during the session (writes show up in sessions started later).
import type { MemoryStore } from './memory-store';

/**
 * The system prompt with the memory blocks after it; sub-agents (delegated tasks) start without.
 * `redact` hides the worker's secrets: a model may have saved one, and the prompt is stored and sent.
 */
export async function withMemorySnapshot(
  systemPrompt: string,
  memory: MemoryStore | undefined,
  session: { parentSessionId?: string },
  redact: (text: string) => string = (text) => text,
): Promise<string> {
  if (!memory || session.parentSessionId) return systemPrompt;
  const snapshot = await memory.snapshot();
  return snapshot ? `${systemPrompt}\n\n${redact(snapshot)}` : systemPrompt;
}
