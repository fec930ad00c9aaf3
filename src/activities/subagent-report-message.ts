// The message that brings a sub-agent's result into its parent's conversation: the original's
// per-task entry, with the child's final answer read from the store (so it never passes through
// the parent's workflow history) and cut to delegation.max_summary_chars.
import type { SubagentReport } from '../workflows/delegation-types';

export function reportMessage(report: SubagentReport, answer: string, maxSummaryChars: number): string {
  const summary = capSummary(answer.trim(), maxSummaryChars, report.sessionId);
  const entry = {
    task_index: report.taskIndex,
    status: report.status,
    summary: summary.text || null,
    ...(summary.truncated ? { summary_truncated: true, summary_full_session: report.sessionId } : {}),
    api_calls: report.turns,
    tool_calls: report.toolCalls,
    duration_seconds: report.durationSeconds,
    model: report.model,
    exit_reason: report.status,
    tokens: report.tokens,
    session_id: report.sessionId,
    ...(report.error ? { error: report.error } : {}),
  };
  return `[SUBAGENT RESULT — task ${report.taskIndex + 1}/${report.taskCount}: ${oneLine(report.goal, 120)}]\n${JSON.stringify(entry)}`;
}

/** Head and tail of an overlong answer; the whole of it stays in the child's transcript. */
export function capSummary(text: string, maxChars: number, sessionId: string): { text: string; truncated: boolean } {
  if (text.length <= maxChars) return { text, truncated: false };
  const marker = `\n\n[... ${text.length - maxChars} characters cut; the whole answer is in session ${sessionId}] ...\n\n`;
  const keep = Math.max(0, maxChars - marker.length);
  const head = Math.ceil(keep * 0.6);
  return { text: text.slice(0, head) + marker + text.slice(text.length - (keep - head)), truncated: true };
}

function oneLine(text: string, maxChars: number): string {
  return text.replace(/\s+/g, ' ').slice(0, maxChars);
}
