// Signed approval webhooks. Outgoing: each pending approval is POSTed as JSON with
// `X-Hermes-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>`. Incoming decisions to
// `serve-approvals` carry the same header, computed with the same shared secret.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { PendingApproval } from './approval-types';

export const SIGNATURE_HEADER = 'x-hermes-signature-256';

export function signBody(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

export function verifySignature(secret: string, body: string, header: string | undefined): boolean {
  if (!header) return false;
  const expected = Buffer.from(signBody(secret, body));
  const given = Buffer.from(header.trim());
  return expected.length === given.length && timingSafeEqual(expected, given);
}

export interface PendingApprovalEvent {
  type: 'approval_pending';
  sessionId: string;
  workflowId: string;
  approval: PendingApproval;
  /** How to answer: POST {sessionId, approvalId, choice, reason?} signed the same way. */
  choices: string[];
  sentAt: string;
}

export async function postPendingApproval(
  target: { url: string; secret?: string; timeoutMs: number },
  event: PendingApprovalEvent,
): Promise<void> {
  const body = JSON.stringify(event);
  const response = await fetch(target.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'user-agent': 'hermes-temporal',
      ...(target.secret ? { [SIGNATURE_HEADER]: signBody(target.secret, body) } : {}),
    },
    body,
    signal: AbortSignal.timeout(target.timeoutMs),
  });
  if (!response.ok) throw new Error(`Approval webhook ${target.url} answered HTTP ${response.status}`);
}
