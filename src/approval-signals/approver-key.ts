// The approver's Ed25519 key pair under the hermes home (never inside a sandbox): created on first
// need by the commands that sign, and used by them to sign decisions the workflow verifies.
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ApprovalChoice, ApprovalDecision, ApproverPublicKey, PendingApproval } from './approval-types';
import { decisionPayload, keyFingerprint } from './decision-signature';
import { startPayload, type StartSignature } from './start-signature';

export interface ApproverKeyFiles {
  /** `<home>/approver`, mode 0700. */
  folder: string;
  /** PKCS#8 PEM private key, mode 0600: whoever reads it can approve. */
  privateKeyFile: string;
  /** One line, `<public key hex> <name>`: safe to share, paste it into approvals.approvers elsewhere. */
  publicKeyFile: string;
}

export interface ApproverKey extends ApproverPublicKey {
  fingerprint: string;
  files: ApproverKeyFiles;
  /** True when this call created the key pair. */
  created: boolean;
  /** Ed25519 signature (hex) over the bytes. */
  sign: (payload: Uint8Array) => string;
}

export function approverKeyFiles(home: string): ApproverKeyFiles {
  const folder = path.join(home, 'approver');
  return { folder, privateKeyFile: path.join(folder, 'ed25519.key'), publicKeyFile: path.join(folder, 'ed25519.pub') };
}

export function defaultApproverName(): string {
  return `${os.userInfo().username}@${os.hostname()}`;
}

/** Reads the key pair; with `create`, makes one first when there is none. Throws when it is unreadable or too open. */
export function loadApproverKey(home: string, options: { create?: boolean; name?: string } = {}): ApproverKey {
  const files = approverKeyFiles(home);
  let created = false;
  if (!existsSync(files.privateKeyFile)) {
    if (!options.create) throw new Error(`No approver key at ${files.privateKeyFile}: run \`hermes-temporal approver init\``);
    created = createKeyFiles(files, options.name ?? defaultApproverName());
  }
  const mode = statSync(files.privateKeyFile).mode & 0o777;
  if (mode & 0o077) {
    throw new Error(`The approver key ${files.privateKeyFile} is readable by others (mode ${mode.toString(8)}): chmod 600 it, or \`hermes-temporal approver init --force\` for a new one`);
  }
  const privateKey = createPrivateKey(readFileSync(files.privateKeyFile));
  if (privateKey.asymmetricKeyType !== 'ed25519') throw new Error(`${files.privateKeyFile} is not an Ed25519 key`);
  const publicKey = publicKeyHex(privateKey);
  let name = readPublicKeyLine(files.publicKeyFile)?.name;
  if (!name) {
    name = options.name ?? defaultApproverName();
    writeFileSync(files.publicKeyFile, `${publicKey} ${name}\n`, { mode: 0o644 });
  }
  return {
    name,
    publicKey,
    fingerprint: keyFingerprint(publicKey),
    files,
    created,
    sign: (payload) => sign(null, payload, privateKey).toString('hex'),
  };
}

/** Replaces the key pair (`approver init --force`); sessions started with the old key no longer accept it. */
export function replaceApproverKey(home: string, name?: string): ApproverKey {
  const files = approverKeyFiles(home);
  for (const file of [files.privateKeyFile, files.publicKeyFile]) if (existsSync(file)) unlinkSync(file);
  return loadApproverKey(home, { create: true, ...(name ? { name } : {}) });
}

/**
 * The keys a new session accepts: this machine's approver key (created if missing) and the
 * configured `approvals.approvers` of operators elsewhere. Public keys only.
 */
export function sessionApprovers(home: string, configured: readonly { name: string; public_key: string }[]): ApproverPublicKey[] {
  const local = loadApproverKey(home, { create: true });
  const approvers: ApproverPublicKey[] = [{ name: local.name, publicKey: local.publicKey }];
  for (const approver of configured) {
    const publicKey = approver.public_key.toLowerCase();
    if (!approvers.some((known) => known.publicKey === publicKey)) approvers.push({ name: approver.name, publicKey });
  }
  return approvers;
}

/** A decision for one pending approval (as the `pendingApprovals` query returned it), signed with the key. */
export function signDecision(
  key: Pick<ApproverKey, 'publicKey' | 'sign'>,
  request: { workflowId: string; pending: Pick<PendingApproval, 'approvalId' | 'requestedAt' | 'command'>; choice: ApprovalChoice; reason?: string; via?: string },
  now: Date = new Date(),
): ApprovalDecision {
  const signedAt = now.toISOString();
  const reason = request.reason || undefined;
  const payload = decisionPayload({
    workflowId: request.workflowId,
    pending: request.pending,
    choice: request.choice,
    ...(reason ? { reason } : {}),
    publicKey: key.publicKey,
    signedAt,
    ...(request.via ? { via: request.via } : {}),
  });
  return {
    approvalId: request.pending.approvalId,
    choice: request.choice,
    ...(reason ? { reason } : {}),
    signature: { publicKey: key.publicKey, signedAt, ...(request.via ? { via: request.via } : {}), value: key.sign(payload) },
  };
}

/** Signs a session's input for its start (start-signature.ts): workers run it only for a key they trust. */
export function signSessionStart(key: Pick<ApproverKey, 'publicKey' | 'sign'>, workflowId: string, input: object, now: Date = new Date()): StartSignature {
  const signer = { publicKey: key.publicKey, signedAt: now.toISOString() };
  return { ...signer, value: key.sign(startPayload(workflowId, input, signer)) };
}

function publicKeyHex(privateKey: KeyObject): string {
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' });
  return Buffer.from(jwk.x as string, 'base64url').toString('hex');
}

function readPublicKeyLine(file: string): { publicKey: string; name: string } | undefined {
  if (!existsSync(file)) return undefined;
  const [publicKey, ...name] = readFileSync(file, 'utf8').trim().split(/\s+/);
  return publicKey && name.length ? { publicKey, name: name.join(' ') } : undefined;
}

/** Writes a new pair atomically (a hard link never replaces): a concurrent creator's key wins. */
function createKeyFiles(files: ApproverKeyFiles, name: string): boolean {
  mkdirSync(files.folder, { recursive: true, mode: 0o700 });
  chmodSync(files.folder, 0o700);
  const { privateKey } = generateKeyPairSync('ed25519');
  const temporary = `${files.privateKeyFile}.${randomUUID()}.tmp`;
  writeFileSync(temporary, privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600 });
  try {
    linkSync(temporary, files.privateKeyFile);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkSync(temporary);
  }
  writeFileSync(files.publicKeyFile, `${publicKeyHex(privateKey)} ${name}\n`, { mode: 0o644 });
  return true;
}
