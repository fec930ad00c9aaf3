// Host-key pinning for the SSH backend. ssh2 accepts any host key unless told otherwise, so every
// connection checks the server's key against the configured fingerprint before authenticating.
import { createHash } from 'node:crypto';

/** The server's key fingerprint in both spellings people copy around. */
export interface HostKeyFingerprint {
  /** `SHA256:<base64 without padding>`, as `ssh-keygen -lf` and `ssh` print it. */
  openssh: string;
  hex: string;
}

/** Fingerprint of an SSH wire-format public key (what ssh2 hands to `hostVerifier`). */
export function fingerprintOf(key: Buffer): HostKeyFingerprint {
  const digest = createHash('sha256').update(key).digest();
  return { openssh: `SHA256:${digest.toString('base64').replace(/=+$/, '')}`, hex: digest.toString('hex') };
}

/**
 * The SHA-256 digest a configured fingerprint names, as lowercase hex. Accepts `SHA256:<base64>`
 * and hex (with or without colons); anything else is a configuration error.
 */
export function parseFingerprint(text: string): string {
  const trimmed = text.trim();
  const base64 = /^SHA256:([A-Za-z0-9+/]{43})=?$/.exec(trimmed);
  if (base64?.[1]) return Buffer.from(`${base64[1]}=`, 'base64').toString('hex');
  const hex = trimmed.replace(/^SHA256:/i, '').replace(/:/g, '').toLowerCase();
  if (/^[0-9a-f]{64}$/.test(hex)) return hex;
  throw new Error(
    `terminal.ssh.host_fingerprint '${text}' is not a SHA-256 fingerprint: use 'SHA256:<base64>' as printed by ` +
      "`ssh-keygen -lf <host key>.pub` (or `ssh-keyscan <host> | ssh-keygen -lf -`), or 64 hex digits",
  );
}

/** A host key the client refused: the message says what was expected and what the server sent. */
export class HostKeyRejectedError extends Error {
  override readonly name = 'HostKeyRejectedError';
}

export interface HostKeyPolicy {
  /** `user@host:port`, for messages. */
  target: string;
  /** Pinned fingerprint (either spelling); undefined when none is configured. */
  expected?: string;
  trustUnknownHost: boolean;
}

/** Why `key` must be refused under `policy`, or undefined when it is acceptable. */
export function hostKeyRejection(key: Buffer, policy: HostKeyPolicy): string | undefined {
  const actual = fingerprintOf(key);
  if (policy.expected === undefined) {
    if (policy.trustUnknownHost) return undefined;
    return (
      `Refusing ${policy.target}: its host key (${actual.openssh}) is not pinned. Set terminal.ssh.host_fingerprint ` +
      `to '${actual.openssh}' after checking it on the server (ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub), ` +
      'or set terminal.ssh.trust_unknown_host: true to accept any key (unsafe).'
    );
  }
  const expectedHex = parseFingerprint(policy.expected);
  if (expectedHex === actual.hex) return undefined;
  const expectedOpenssh = `SHA256:${Buffer.from(expectedHex, 'hex').toString('base64').replace(/=+$/, '')}`;
  return (
    `Host key mismatch for ${policy.target}: expected ${expectedOpenssh} (configured in terminal.ssh.host_fingerprint) ` +
    `but the server presented ${actual.openssh}. The host was reinstalled, or someone is intercepting the connection.`
  );
}
