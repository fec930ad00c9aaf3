// Pure module shared by the workflow (which verifies) and the CLI, serve-approvals and the terminal
// prompt (which sign): the canonical bytes an approver's Ed25519 key signs for one decision.
import * as ed from '@noble/ed25519';
import { sha256, sha512 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import type { ApprovalChoice, ApprovalDecision, ApproverPublicKey, PendingApproval } from './approval-types';

// noble's synchronous verify needs a synchronous SHA-512; the workflow sandbox has no WebCrypto.
ed.hashes.sha512 = sha512;

/** First line of every signed payload: a signature for anything else never verifies as a decision. */
export const DECISION_PAYLOAD_HEADER = 'hermes-temporal approval decision v1';

export const PUBLIC_KEY_PATTERN = /^[0-9a-f]{64}$/;
export const SIGNATURE_PATTERN = /^[0-9a-f]{128}$/;

/** What a signature binds: this session, this very pending approval and this answer. */
export interface DecisionPayloadFields {
  workflowId: string;
  pending: Pick<PendingApproval, 'approvalId' | 'requestedAt' | 'command'>;
  choice: ApprovalChoice;
  reason?: string;
  publicKey: string;
  signedAt: string;
  via?: string;
}

/**
 * The canonical payload: the header line, then a JSON array of strings in a fixed order
 * (JSON.stringify of strings is deterministic, so both sides build the same bytes):
 * [workflowId, approvalId, requestedAt, sha256(command) hex, choice, reason|"", publicKey, signedAt, via|""].
 */
export function decisionPayload(fields: DecisionPayloadFields): Uint8Array {
  const commandDigest = bytesToHex(sha256(utf8ToBytes(fields.pending.command)));
  const parts = [
    fields.workflowId,
    fields.pending.approvalId,
    fields.pending.requestedAt,
    commandDigest,
    fields.choice,
    fields.reason ?? '',
    fields.publicKey,
    fields.signedAt,
    fields.via ?? '',
  ];
  return utf8ToBytes(`${DECISION_PAYLOAD_HEADER}\n${JSON.stringify(parts)}`);
}

/** Short, stable name of a key for messages: `ed25519:` and 16 hex digits of its SHA-256. */
export function keyFingerprint(publicKey: string): string {
  return `ed25519:${bytesToHex(sha256(hexToBytes(publicKey))).slice(0, 16)}`;
}

export function describeApprovers(approvers: readonly ApproverPublicKey[]): string {
  if (!approvers.length) return 'no keys at all (the session was started without approver keys)';
  return approvers.map((approver) => `${approver.name} (${keyFingerprint(approver.publicKey)})`).join(', ');
}

export type DecisionVerification = { ok: true; decidedBy: string } | { ok: false; message: string };

/** The session a decision is checked against: its workflow, the approval asked, the keys it accepts. */
export interface VerificationContext {
  workflowId: string;
  pending: DecisionPayloadFields['pending'];
  approvers: readonly ApproverPublicKey[];
  acceptUnsigned: boolean;
}

/**
 * Checks who made a decision: a signature by one of the session's approver keys over exactly
 * this approval, or (only with `acceptUnsigned`) no signature at all. Never trusts `decidedBy`.
 */
export function verifyDecision(decision: ApprovalDecision, context: VerificationContext): DecisionVerification {
  const { signature } = decision;
  if (!signature) {
    if (context.acceptUnsigned) return { ok: true, decidedBy: `unsigned:${decision.decidedBy ?? 'temporal-ui'}` };
    return {
      ok: false,
      message:
        'Approval decisions must be signed by an approver key (`hermes-temporal approve` signs them); this session accepts ' +
        `keys ${describeApprovers(context.approvers)}. Unsigned decisions are accepted only with approvals.accept_unsigned`,
    };
  }
  const approver = context.approvers.find((candidate) => candidate.publicKey === signature.publicKey);
  if (!approver) {
    return {
      ok: false,
      message: `The decision is signed by an unknown key ${keyFingerprint(signature.publicKey)}; this session accepts keys ${describeApprovers(context.approvers)}`,
    };
  }
  const payload = decisionPayload({
    workflowId: context.workflowId,
    pending: context.pending,
    choice: decision.choice,
    ...(decision.reason !== undefined ? { reason: decision.reason } : {}),
    publicKey: signature.publicKey,
    signedAt: signature.signedAt,
    ...(signature.via !== undefined ? { via: signature.via } : {}),
  });
  let valid = false;
  try {
    valid = ed.verify(hexToBytes(signature.value), payload, hexToBytes(signature.publicKey));
  } catch {
    valid = false;
  }
  if (!valid) {
    return {
      ok: false,
      message: `The signature by ${approver.name} does not match this decision: it was made for another approval, session or answer, or was altered`,
    };
  }
  return { ok: true, decidedBy: `key:${approver.name}${signature.via ? ` via ${signature.via}` : ''}` };
}

/**
 * verifyDecision, remembering the decisions that verified: an update's validator and its handler,
 * or a signal's check and its application, ask about the same decision, and an Ed25519 check costs
 * milliseconds of the workflow thread. The key holds every input the signature covers besides the
 * session's own (workflow id, the pending approval's command, the keys), which do not change.
 */
export class VerifiedDecisions {
  private static readonly REMEMBERED = 8;
  private readonly verified = new Map<string, string>();

  verify(decision: ApprovalDecision, context: VerificationContext): DecisionVerification {
    const { signature } = decision;
    const key = signature
      ? JSON.stringify([context.pending.approvalId, context.pending.requestedAt, context.pending.command, decision.choice, decision.reason ?? null, signature])
      : undefined;
    const decidedBy = key === undefined ? undefined : this.verified.get(key);
    if (decidedBy !== undefined) return { ok: true, decidedBy };
    const verification = verifyDecision(decision, context);
    if (verification.ok && key !== undefined) {
      this.verified.set(key, verification.decidedBy);
      if (this.verified.size > VerifiedDecisions.REMEMBERED) this.verified.delete(this.verified.keys().next().value as string);
    }
    return verification;
  }
}
