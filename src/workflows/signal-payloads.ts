// Reads the payloads of the signals a session takes from other workflows. Anything that reaches
// the Temporal server can send them, with any JSON: a malformed one must be dropped, not throw in
// the handler (which fails the workflow task again on every retry: the session stalls for good),
// and none may grow the session's state past a few kilobytes.
import { isRecord } from '../approval-signals/definitions';
import type { DescendantApprovals, SubagentReport, SubagentStatus } from './delegation-types';
import type { CodeToolCallRequest } from './code-call-messages';

const SUBAGENT_STATUSES: readonly SubagentStatus[] = ['completed', 'failed', 'max_turns', 'cancelled', 'timed_out'];
/** Ids of sessions, workflows and calls; the longest real ones are a few dozen characters. */
const MAX_ID_CHARS = 300;
/** Texts the workflow keeps only to show (goals, errors, one-line summaries). */
const MAX_TEXT_CHARS = 2000;

export function parseSubagentReport(value: unknown): SubagentReport | undefined {
  if (!isRecord(value) || !isId(value.sessionId) || !SUBAGENT_STATUSES.includes(value.status as SubagentStatus)) return undefined;
  const tokens = isRecord(value.tokens) ? value.tokens : {};
  return {
    sessionId: value.sessionId,
    taskIndex: count(value.taskIndex),
    taskCount: count(value.taskCount),
    goal: text(value.goal),
    status: value.status as SubagentStatus,
    preview: text(value.preview).slice(0, 200),
    answerChars: count(value.answerChars),
    turns: count(value.turns),
    toolCalls: count(value.toolCalls),
    tokens: { input: count(tokens.input), output: count(tokens.output) },
    durationSeconds: count(value.durationSeconds),
    model: text(value.model).slice(0, MAX_ID_CHARS),
    ...(typeof value.error === 'string' ? { error: text(value.error) } : {}),
  };
}

export function parseDescendantApprovals(value: unknown): DescendantApprovals | undefined {
  if (!isRecord(value) || !isId(value.sessionId) || !isId(value.workflowId)) return undefined;
  return {
    sessionId: value.sessionId,
    workflowId: value.workflowId,
    count: count(value.count),
    ...(typeof value.first === 'string' ? { first: value.first.slice(0, 400) } : {}),
  };
}

export function parseCodeToolCallRequest(value: unknown): CodeToolCallRequest | undefined {
  if (!isRecord(value) || !isId(value.parentCallId) || !isId(value.name) || !Number.isSafeInteger(value.index)) return undefined;
  return { parentCallId: value.parentCallId, index: value.index as number, name: value.name, summary: text(value.summary).slice(0, 300) };
}


function isId(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_ID_CHARS;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value.slice(0, MAX_TEXT_CHARS) : '';
}

/** A non-negative finite number (0 for anything else). */
function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;
}
