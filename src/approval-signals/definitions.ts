// Signal, update and query definitions of the approval flow: typed constants shared by the
// workflow, the CLI, the webhook endpoint and the tests (never a string name at a call site).
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { ApprovalChoice, ApprovalDecision, PendingApproval } from './approval-types';
import { APPROVAL_CHOICES } from './approval-types';

/** Fire-and-forget decision; plain JSON, so an operator can send it from the Temporal UI. */
export const approvalDecisionSignal = defineSignal<[ApprovalDecision]>('approvalDecision');

export interface DecideApprovalResult {
  approvalId: string;
  choice: ApprovalChoice;
  /** `always` becomes `session` when the command may not become a permanent rule. */
  applied: ApprovalChoice;
}

/** The same decision as an update: a bad request is rejected (and never written to history). */
export const decideApprovalUpdate = defineUpdate<DecideApprovalResult, [ApprovalDecision]>('decideApproval');

export const pendingApprovalsQuery = defineQuery<PendingApproval[]>('pendingApprovals');

/** Checks the shape of a decision from outside; returns it cleaned, or throws with the reason. */
export function parseApprovalDecision(value: unknown): ApprovalDecision {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TypeError('An approval decision must be an object: {"approvalId": "...", "choice": "once|session|always|deny"}');
  }
  const { approvalId, choice, reason, decidedBy } = value as Record<string, unknown>;
  if (typeof approvalId !== 'string' || !approvalId) throw new TypeError('approvalId must be a non-empty string');
  if (typeof choice !== 'string' || !(APPROVAL_CHOICES as readonly string[]).includes(choice)) {
    throw new TypeError(`choice must be one of ${APPROVAL_CHOICES.join(', ')} (got ${JSON.stringify(choice)})`);
  }
  if (reason !== undefined && typeof reason !== 'string') throw new TypeError('reason must be a string');
  if (decidedBy !== undefined && typeof decidedBy !== 'string') throw new TypeError('decidedBy must be a string');
  return {
    approvalId,
    choice: choice as ApprovalChoice,
    ...(reason ? { reason: reason.slice(0, 1000) } : {}),
    ...(decidedBy ? { decidedBy: decidedBy.slice(0, 200) } : {}),
  };
}
