// Activities that open and close a session's record in the store.
import type { SessionStore } from '../store/session-store';
import { selectToolNames } from '../registry/definitions';
import type { ToolRegistry } from '../registry/registry';

export interface PrepareSessionInput {
  sessionId: string;
  workflowId: string;
  task: string;
  model: string;
  cwd: string;
  toolsets?: string[];
  disabledToolsets?: string[];
  parentSessionId?: string;
}

export interface PreparedSession {
  /** The next free transcript seq. */
  nextSeq: number;
  toolCount: number;
}

export interface FinishSessionInput {
  sessionId: string;
  status: string;
  answer?: string;
  error?: string;
}

export function systemPrompt(cwd: string): string {
  return [
    'You are Hermes, an autonomous agent that completes the user\'s task by calling tools.',
    'Work step by step. When several tool calls do not depend on each other, make them in the same turn so they run in parallel.',
    'When the task is done, reply with a short summary of what you did and the result, without calling any tool.',
    `The working directory is ${cwd}.`,
  ].join('\n');
}

export function createSessionActivities(deps: { registry: ToolRegistry; store: SessionStore }) {
  return {
    /** Records the session, resolves its tools once, and writes the system and user messages. */
    async prepareSession(input: PrepareSessionInput): Promise<PreparedSession> {
      const selected = selectToolNames(input.toolsets, input.disabledToolsets, { registry: deps.registry });
      const available = await deps.registry.getDefinitions(selected);
      const toolNames = available.map((definition) => definition.function.name);
      await deps.store.createSession({
        sessionId: input.sessionId,
        workflowId: input.workflowId,
        task: input.task,
        model: input.model,
        cwd: input.cwd,
        toolNames,
        status: 'running',
        ...(input.parentSessionId ? { parentSessionId: input.parentSessionId } : {}),
      });
      await deps.store.appendMessage(input.sessionId, { seq: 0, role: 'system', content: systemPrompt(input.cwd) });
      await deps.store.appendMessage(input.sessionId, { seq: 1, role: 'user', content: input.task });
      return { nextSeq: 2, toolCount: toolNames.length };
    },

    async finishSession(input: FinishSessionInput): Promise<void> {
      await deps.store.updateSession(input.sessionId, {
        status: input.status,
        ...(input.answer !== undefined ? { answer: input.answer } : {}),
        ...(input.error !== undefined ? { error: input.error } : {}),
      });
    },
  };
}
