// The pending approvals as the workflow keeps them in its memo: what a human is asked, readable
// with `describe` while no worker runs to answer queries. Pure: the workflow imports it.
import type { PendingApproval } from './approval-types';
import { visibleText } from './visible-text';

export const PENDING_APPROVALS_MEMO = 'pendingApprovals';

/** Memos travel in every describe: a bounded number of approvals, each with what it shows. */
const MAX_MEMO_APPROVALS = 20;

export type MemoPendingApproval = Pick<PendingApproval, 'approvalId' | 'command' | 'description' | 'requestedAt' | 'expiresAt'> &
  Partial<Pick<PendingApproval, 'tool' | 'refusedDecision'>>;

export function pendingApprovalsMemo(pending: readonly PendingApproval[]): MemoPendingApproval[] {
  return pending.slice(0, MAX_MEMO_APPROVALS).map((approval) => ({
    approvalId: approval.approvalId,
    // The Temporal UI draws what the model wrote: bidi overrides and invisible characters shown as escapes.
    command: visibleText(approval.command),
    description: visibleText(approval.description),
    requestedAt: approval.requestedAt,
    expiresAt: approval.expiresAt,
    ...(approval.tool ? { tool: approval.tool } : {}),
    ...(approval.refusedDecision ? { refusedDecision: visibleText(approval.refusedDecision) } : {}),
  }));
}
