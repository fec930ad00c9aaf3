// Approval keys land in workflow history, so a long one is shortened: never by cutting it, which
// would let an approval of one command cover every longer command sharing its first characters.
// Worker side only (node:crypto); the workflow compares the keys the assessment activity made.
import { createHash } from 'node:crypto';

/** Keys up to this long are kept as they are: readable, and what existing allowlists hold. */
export const MAX_PLAIN_APPROVAL_KEY = 500;

/**
 * The key as it is stored and compared: a short key unchanged; a longer one as its first
 * characters (for people) plus the SHA-256 of the whole key, so equal keys mean equal full keys.
 * A shortened key is always longer than any plain key, so the two forms never meet.
 */
export function boundedApprovalKey(key: string): string {
  return boundedText(key, MAX_PLAIN_APPROVAL_KEY);
}

/**
 * Any text bounded the same way: up to `limit` characters unchanged, a longer one as its first
 * `limit` characters plus the SHA-256 of the whole (longer than `limit`, so never a plain text).
 */
export function boundedText(text: string, limit: number): string {
  if (text.length <= limit) return text;
  return `${text.slice(0, limit)}…#sha256:${createHash('sha256').update(text).digest('hex')}`;
}
