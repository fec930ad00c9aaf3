// Activities that open and close a session's record in the store.
import { readCommandAllowlist } from '../approval-signals/allowlist-file';
import type { EnvironmentFactory } from '../environments/factory';
import type { HookRegistry } from '../hooks/hook-registry';
import type { SecretRedactor } from '../environments/secret-redaction';
import type { Backend } from '../environments/terminal-environment';
import type { SessionStore } from '../store/session-store';
import type { MemoryStore } from '../memory/memory-store';
import { withMemorySnapshot } from '../memory/memory-snapshot';
import { selectToolNames } from '../registry/definitions';
import type { ToolRegistry } from '../registry/registry';
import { childToolNames } from '../workflows/delegation-types';
import type { SubagentReport } from '../workflows/delegation-types';
import { subagentSystemPrompt, type SubagentBrief } from './subagent-prompt';
import { reportMessage } from './subagent-report-message';
import type { LoadedConfig } from '../config/load';
import { mcpServerCount } from './mcp-list-tools';

export interface PrepareSessionInput {
  sessionId: string;
  workflowId: string;
  task: string;
  model: string;
  /** Where its shell starts (its system prompt names it). */
  cwd: string;
  /**
   * The folder its commands and file tools are bounded to (a local sub-agent's: its root's), which
   * the store records as the session's folder: recall and the folders the worker keeps its own
   * programs out of go by it. A sub-agent starts where its parent's shell was, which may be `/usr`.
   */
  workspace?: string;
  /** The session's terminal backend: tools that need it are left out when it cannot work here. */
  backend: Backend;
  toolsets?: string[];
  disabledToolsets?: string[];
  parentSessionId?: string;
  /** Set for a sub-agent: its brief (the system prompt) and role (which of its parent's tools it keeps). */
  subagent?: SubagentBrief;
}

export interface PreparedSession {
  /** The next free transcript seq. */
  nextSeq: number;
  toolCount: number;
  /** The permanent command allowlist, read afresh for every session. */
  allowlist: string[];
  /** MCP servers the session gets (the workflow lists their tools when there are any). */
  mcpServers?: number;
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

export function createSessionActivities(deps: {
  registry: ToolRegistry;
  store: SessionStore;
  environments: EnvironmentFactory;
  allowlistFile: string;
  redactor: SecretRedactor;
  /** Plugin and shell hooks (absent: none). */
  hooks?: HookRegistry;
  memory?: MemoryStore;
  config?: LoadedConfig;
}) {
  return {
    /** Records the session, resolves its tools once, and writes the system and user messages. */
    async prepareSession(input: PrepareSessionInput): Promise<PreparedSession> {
      const selected = selectToolNames(input.toolsets, input.disabledToolsets, { registry: deps.registry });
      const available = await deps.registry.getDefinitions(selected, {
        terminalUnavailableReason: () => deps.environments.unavailableReason(input.backend),
        backend: input.backend,
      });
      let toolNames = available.map((definition) => definition.function.name);
      if (input.subagent) {
        // A child's tools only ever narrow its parent's: never one the parent did not have.
        const parent = input.parentSessionId ? await deps.store.getSession(input.parentSessionId) : undefined;
        const allowed = new Set(childToolNames(parent?.toolNames ?? [], input.subagent.role));
        toolNames = toolNames.filter((name) => allowed.has(name));
      }
      await deps.store.createSession({
        sessionId: input.sessionId,
        workflowId: input.workflowId,
        task: input.task,
        model: input.model,
        cwd: input.workspace ?? input.cwd,
        toolNames,
        status: 'running',
        ...(input.parentSessionId ? { parentSessionId: input.parentSessionId } : {}),
      });
      // Written once (a retry keeps the first): the memory snapshot stays frozen for the session.
      const base = input.subagent ? subagentSystemPrompt(input.subagent, input.cwd) : systemPrompt(input.cwd);
      const system = await withMemorySnapshot(base, deps.memory, input, (text) => deps.redactor.redact(text));
      await deps.store.appendMessage(input.sessionId, { seq: 0, role: 'system', content: system });
      await deps.store.appendMessage(input.sessionId, { seq: 1, role: 'user', content: input.task });
      // Observers only: what they say cannot change the session, so a retry that repeats them is harmless.
      await deps.hooks?.notify('on_session_start', { session_id: input.sessionId, model: input.model, platform: 'cli' });
      const mcpServers = deps.config ? mcpServerCount(deps.config, input.toolsets, input.disabledToolsets) : 0;
      return { nextSeq: 2, toolCount: toolNames.length, allowlist: await readCommandAllowlist(deps.allowlistFile), ...(mcpServers ? { mcpServers } : {}) };
    },

    /** Adds a message the session itself produced (e.g. a background-process notification). */
    async appendSessionMessage(input: { sessionId: string; seq: number; role: 'user'; content: string }): Promise<void> {
      await deps.store.appendMessage(input.sessionId, { seq: input.seq, role: input.role, content: input.content });
    },

    /** Brings a sub-agent's result into its parent's conversation, its answer read from the child's record. */
    async appendSubagentReport(input: { sessionId: string; seq: number; report: SubagentReport; maxSummaryChars: number }): Promise<void> {
      const child = await deps.store.getSession(input.report.sessionId);
      const content = deps.redactor.redactResult(reportMessage(input.report, child?.answer ?? '', input.maxSummaryChars));
      // A child's last message is withheld when anything it read was (the store carries it on).
      const [childLast] = await deps.store.getMessages(input.report.sessionId, { last: 1 });
      await deps.store.appendMessage(input.sessionId, { seq: input.seq, role: 'user', content, ...(childLast?.sensitive ? { sensitive: true as const } : {}) });
    },

    /** Stores a tool result the workflow itself produced (when the tool's activity gave up). */
    async appendToolResult(input: { sessionId: string; seq: number; toolCallId: string; name: string; content: string }): Promise<void> {
      await deps.store.appendMessage(input.sessionId, {
        seq: input.seq,
        role: 'tool',
        // The workflow's text names the failure, whose message may quote a command's output.
        content: deps.redactor.redactResult(input.content),
        toolCallId: input.toolCallId,
        name: input.name,
      });
    },

    async finishSession(input: FinishSessionInput): Promise<void> {
      await deps.store.updateSession(input.sessionId, {
        status: input.status,
        ...(input.answer !== undefined ? { answer: input.answer } : {}),
        ...(input.error !== undefined ? { error: input.error } : {}),
      });
      if (deps.hooks?.has('on_session_end')) {
        const session = await deps.store.getSession(input.sessionId);
        await deps.hooks.notify('on_session_end', {
          session_id: input.sessionId,
          task_id: input.sessionId,
          completed: input.status === 'completed',
          interrupted: input.status === 'cancelled',
          model: session?.model ?? '',
          platform: 'cli',
          reason: input.error ?? input.status,
        });
      }
    },
  };
}
