// Signal, update and query definitions of the approval flow: typed constants shared by the
// workflow, the CLI, the webhook endpoint and the tests (never a string name at a call site).
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { ApprovalChoice, ApprovalDecision, DecisionSignature, PendingApproval } from './approval-types';
import { APPROVAL_CHOICES } from './approval-types';
import { PUBLIC_KEY_PATTERN, SIGNATURE_PATTERN } from './decision-signature';

const MAX_REASON_CHARS = 1000;
const MAX_NAME_CHARS = 200;

/** Fire-and-forget decision; plain JSON, so an operator can send it from the Temporal UI. */
export const approvalDecisionSignal = defineSignal<[ApprovalDecision]>('approvalDecision');

export interface DecideApprovalResult {
  approvalId: string;
  choice: ApprovalChoice;
  /** `always` becomes `session` when the command may not become a permanent rule. */
  applied: ApprovalChoice;
  /** The verified approver (`key:<name>`, or `unsigned:<claim>` where unsigned decisions are accepted). */
  decidedBy: string;
}

/** The same decision as an update: a bad request is rejected (and never written to history). */
export const decideApprovalUpdate = defineUpdate<DecideApprovalResult, [ApprovalDecision]>('decideApproval');

export const pendingApprovalsQuery = defineQuery<PendingApproval[]>('pendingApprovals');

/** One line of the session's approval audit trail: what was decided and by whom, or refused and why. */
export interface ApprovalAuditEntry {
  approvalId: string;
  /** Workflow time (ISO 8601). */
  at: string;
  outcome: 'decided' | 'refused';
  applied?: ApprovalChoice;
  decidedBy?: string;
  /** Why a decision was refused. */
  message?: string;
}

/** The latest decisions and refusals of this run (bounded), for operators and audits. */
export const approvalAuditQuery = defineQuery<ApprovalAuditEntry[]>('approvalAudit');

/**
 * Checks the shape of a decision from outside; returns it cleaned, or throws with the reason.
 * Nothing is clipped: a signature covers the exact reason, so an over-long one is refused.
 */
export function parseApprovalDecision(value: unknown): ApprovalDecision {
  if (!isRecord(value)) {
    throw new TypeError('An approval decision must be an object: {"approvalId": "...", "choice": "once|session|always|deny", "signature": {...}}');
  }
  const { approvalId, choice, reason, decidedBy, signature } = value;
  if (typeof approvalId !== 'string' || !approvalId) throw new TypeError('approvalId must be a non-empty string');
  if (approvalId.length > MAX_NAME_CHARS) throw new TypeError(`approvalId must be at most ${MAX_NAME_CHARS} characters`);
  if (typeof choice !== 'string' || !(APPROVAL_CHOICES as readonly string[]).includes(choice)) {
    throw new TypeError(`choice must be one of ${APPROVAL_CHOICES.join(', ')} (got ${String(JSON.stringify(choice)).slice(0, 40)})`);
  }
  if (reason !== undefined && typeof reason !== 'string') throw new TypeError('reason must be a string');
  if (typeof reason === 'string' && reason.length > MAX_REASON_CHARS) throw new TypeError(`reason must be at most ${MAX_REASON_CHARS} characters`);
  if (decidedBy !== undefined && typeof decidedBy !== 'string') throw new TypeError('decidedBy must be a string');
  return {
    approvalId,
    choice: choice as ApprovalChoice,
    ...(reason ? { reason } : {}),
    ...(decidedBy ? { decidedBy: decidedBy.slice(0, MAX_NAME_CHARS) } : {}),
    ...(signature !== undefined ? { signature: parseSignature(signature) } : {}),
  };
}

function parseSignature(value: unknown): DecisionSignature {
  if (!isRecord(value)) throw new TypeError('signature must be an object: {"publicKey", "signedAt", "via"?, "value"}');
  const { publicKey, signedAt, via } = value;
  const signatureValue = value.value;
  if (typeof publicKey !== 'string' || !PUBLIC_KEY_PATTERN.test(publicKey)) throw new TypeError('signature.publicKey must be 64 lowercase hex characters');
  if (typeof signedAt !== 'string' || !signedAt || signedAt.length > 40) throw new TypeError('signature.signedAt must be an ISO 8601 time');
  if (via !== undefined && (typeof via !== 'string' || via.length > MAX_NAME_CHARS)) {
    throw new TypeError(`signature.via must be a string of at most ${MAX_NAME_CHARS} characters`);
  }
  if (typeof signatureValue !== 'string' || !SIGNATURE_PATTERN.test(signatureValue)) throw new TypeError('signature.value must be 128 lowercase hex characters');
  return { publicKey, signedAt, ...(via !== undefined ? { via } : {}), value: signatureValue };
}

/** A JSON object (not null, not an array): what every signal payload must be before its fields are read. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
