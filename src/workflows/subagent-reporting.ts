// How a sub-agent talks to the tree above it: its report to its parent when it ends, and its
// pending approvals to the root, which shows them to operators. Both are signals to workflow ids
// without a run id, so they reach the latest run after continue-as-new.
import { CancellationScope, getExternalWorkflowHandle, log, workflowInfo } from '@temporalio/workflow';
import type { PendingApproval } from '../approval-signals/approval-types';
import type { SubagentInfo, SubagentReport, SubagentStatus } from './delegation-types';
import { descendantApprovalsSignal, subagentFinishedSignal } from './messages';
import type { SessionInput, TokenUsage } from './session-types';

export interface ReportFacts {
  status: SubagentStatus;
  answer: string;
  turns: number;
  toolCalls: number;
  tokens: TokenUsage;
  durationSeconds: number;
  error?: string;
}

export function buildReport(input: SessionInput, subagent: SubagentInfo, facts: ReportFacts): SubagentReport {
  const answer = facts.answer.trim();
  // A child that "completed" without a word has nothing to report: the original calls that failed.
  const status = facts.status === 'completed' && !answer ? 'failed' : facts.status;
  return {
    sessionId: input.sessionId,
    taskIndex: subagent.taskIndex,
    taskCount: subagent.taskCount,
    goal: subagent.goal,
    status,
    preview: answer.replace(/\s+/g, ' ').slice(0, 200),
    answerChars: answer.length,
    turns: facts.turns,
    toolCalls: facts.toolCalls,
    tokens: facts.tokens,
    durationSeconds: Math.round(facts.durationSeconds * 10) / 10,
    model: input.model,
    ...(facts.error ? { error: facts.error } : status === 'failed' && !answer ? { error: 'The sub-agent ended without a final answer' } : {}),
  };
}

/** Sends the report to the parent; a parent that is gone (terminated) is logged, not fatal. */
export async function reportToParent(subagent: SubagentInfo, report: SubagentReport): Promise<void> {
  await CancellationScope.nonCancellable(() =>
    getExternalWorkflowHandle(subagent.parentWorkflowId)
      .signal(subagentFinishedSignal, report)
      .catch((error: unknown) => log.warn('Could not report to the parent session', { parent: subagent.parentWorkflowId, error: String(error) })),
  );
}

/** Tells the root how many approvals this sub-agent waits for (0 when none). */
export function tellRootAboutApprovals(input: SessionInput, subagent: SubagentInfo, pending: readonly PendingApproval[]): void {
  const first = pending[0];
  void getExternalWorkflowHandle(subagent.rootWorkflowId)
    .signal(descendantApprovalsSignal, {
      sessionId: input.sessionId,
      workflowId: workflowInfo().workflowId,
      count: pending.length,
      ...(first ? { first: `${first.approvalId} (${first.description}): ${(first.command.split('\n')[0] ?? '').slice(0, 200)}` } : {}),
    })
    .catch((error: unknown) => log.warn('Could not tell the root session about pending approvals', { error: String(error) }));
}
