// Who started a session: the starter's approver key signs the session's whole input, bound to its
// workflow id and the time of signing. A worker runs a root session only when that key is one its
// own config trusts (activities/start-verification.ts): anything else that reaches the Temporal
// server (a model's script on an ssh host, say) could otherwise start a session with approvals off,
// its own approver keys and any workspace. Children and continued runs are vouched for by the
// session Temporal names as their origin (activities/session-lineage.ts). Pure: the CLI signs, a worker checks.
import * as ed from '@noble/ed25519';
import { hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import type { ApproverPublicKey } from './approval-types';
import { describeApprovers, keyFingerprint, PUBLIC_KEY_PATTERN, SIGNATURE_PATTERN } from './decision-signature';

/** First line of every signed start: a signature for anything else never verifies as one. */
export const START_PAYLOAD_HEADER = 'hermes-temporal session start v1';
/** How far a start's signing may lie from the run's start (clock skew, a slow client), either way. */
export const START_SIGNATURE_WINDOW_MS = 10 * 60_000;

export interface StartSignature {
  publicKey: string;
  /** ISO time of signing. */
  signedAt: string;
  /** Ed25519 signature (hex) over `startPayload`. */
  value: string;
}

/** What a start signature covers: the input without the signature itself. */
interface SignedInput {
  startSignature?: StartSignature;
}

export type StartVerification = { ok: true; startedBy: string } | { ok: false; reason: string };

/**
 * The canonical bytes: the header line, then a JSON array of the workflow id, key, time and the
 * input as canonical JSON (keys sorted at every level), so both sides build the same bytes from
 * the same values however a payload converter ordered them.
 */
export function startPayload(workflowId: string, input: SignedInput, signer: Pick<StartSignature, 'publicKey' | 'signedAt'>): Uint8Array {
  const { startSignature: _signature, ...signed } = input;
  return utf8ToBytes(`${START_PAYLOAD_HEADER}\n${JSON.stringify([workflowId, signer.publicKey, signer.signedAt, canonicalJson(signed)])}`);
}

/** JSON with object keys sorted and undefined members left out, as JSON.stringify would. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.keys(value)
      .sort()
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * Checks a root run's start: signed by one of `trusted`, over exactly this input and workflow id,
 * within the window around the run's start. A start without a signature, by another key, or
 * changed after signing is refused with the reason.
 */
export function verifyStartSignature(
  request: { workflowId: string; input: SignedInput; runStartedAt: string },
  trusted: readonly ApproverPublicKey[],
): StartVerification {
  const signature = request.input.startSignature;
  if (!signature) return { ok: false, reason: 'it carries no start signature' };
  if (!PUBLIC_KEY_PATTERN.test(String(signature.publicKey)) || !SIGNATURE_PATTERN.test(String(signature.value)) || Number.isNaN(Date.parse(String(signature.signedAt)))) {
    return { ok: false, reason: 'its start signature is malformed' };
  }
  const starter = trusted.find((key) => key.publicKey === signature.publicKey);
  if (!starter) {
    return { ok: false, reason: `it is signed by ${keyFingerprint(signature.publicKey)}, a key this worker does not trust (it trusts ${describeApprovers(trusted)})` };
  }
  let valid = false;
  try {
    valid = ed.verify(hexToBytes(signature.value), startPayload(request.workflowId, request.input, signature), hexToBytes(signature.publicKey));
  } catch {
    valid = false;
  }
  if (!valid) return { ok: false, reason: `its signature by ${starter.name} does not match it: the input was changed after signing, or signed for another workflow id` };
  const skew = Math.abs(Date.parse(request.runStartedAt) - Date.parse(signature.signedAt));
  if (!(skew <= START_SIGNATURE_WINDOW_MS)) {
    return { ok: false, reason: `it was signed at ${signature.signedAt}, more than ${START_SIGNATURE_WINDOW_MS / 60_000} minutes from its start at ${request.runStartedAt}: a signed start is good for one session, when it is made` };
  }
  return { ok: true, startedBy: starter.name };
}
