// Decisions carry proof of an approver: a signature over exactly one pending approval of one
// session, made with a key the session lists. Anything else is refused with a reason.
import { chmodSync, readFileSync, statSync } from 'node:fs';
import { approverKeyFiles, loadApproverKey, replaceApproverKey, sessionApprovers, signDecision } from '../../../src/approval-signals/approver-key';
import { decisionPayload, keyFingerprint, VerifiedDecisions, verifyDecision } from '../../../src/approval-signals/decision-signature';
import { parseApprovalDecision } from '../../../src/approval-signals/definitions';
import { tempDir } from '../../helpers/temp-dirs';

const home = () => tempDir('hermes-approver-');
const pending = { approvalId: 'ap-3', requestedAt: '2026-12-01T10:00:00.000Z', command: 'rm -rf build' };
const workflowId = 'hermes-session-abc';

function setup() {
  const key = loadApproverKey(home(), { create: true, name: 'alice' });
  const approvers = [{ name: key.name, publicKey: key.publicKey }];
  const check = (decision: unknown, overrides: Partial<{ workflowId: string; pending: typeof pending; acceptUnsigned: boolean }> = {}) =>
    verifyDecision(parseApprovalDecision(JSON.parse(JSON.stringify(decision))), { workflowId, pending, approvers, acceptUnsigned: false, ...overrides });
  return { key, approvers, check };
}

test('a decision signed by a listed key verifies and is recorded under that key, not under a claimed name', () => {
  const { key, check } = setup();
  const decision = signDecision(key, { workflowId, pending, choice: 'always', reason: 'fine', via: 'cli:alice' });
  expect(check({ ...decision, decidedBy: 'cli:root' })).toEqual({ ok: true, decidedBy: 'key:alice via cli:alice' });
});

test('tampering with the choice, the reason or the via line breaks the signature', () => {
  const { key, check } = setup();
  const decision = signDecision(key, { workflowId, pending, choice: 'deny', reason: 'no', via: 'cli:alice' });
  for (const tampered of [
    { ...decision, choice: 'always' },
    { ...decision, reason: 'ok then' },
    { ...decision, signature: { ...decision.signature, via: 'cli:bob' } },
    { ...decision, signature: { ...decision.signature, signedAt: '2027-01-01T00:00:00.000Z' } },
  ]) {
    expect(check(tampered)).toEqual({ ok: false, message: expect.stringMatching(/signature by alice does not match this decision/) as unknown });
  }
});

test('a signature cannot be reused for another approval, another session or the same id requested again', () => {
  const { key, check } = setup();
  const decision = signDecision(key, { workflowId, pending, choice: 'once' });
  expect(check(decision).ok).toBe(true);
  expect(check({ ...decision, approvalId: 'ap-4' }, { pending: { ...pending, approvalId: 'ap-4' } }).ok).toBe(false);
  expect(check(decision, { workflowId: 'hermes-session-other' }).ok).toBe(false);
  expect(check(decision, { pending: { ...pending, requestedAt: '2026-12-01T11:00:00.000Z' } }).ok).toBe(false);
  expect(check(decision, { pending: { ...pending, command: 'rm -rf /' } }).ok).toBe(false);
});

test('a key the session does not list is refused, naming the keys it accepts', () => {
  const { check, key } = setup();
  const stranger = loadApproverKey(home(), { create: true, name: 'mallory' });
  const result = check(signDecision(stranger, { workflowId, pending, choice: 'always' }));
  expect(result).toEqual({ ok: false, message: expect.stringContaining(`signed by an unknown key ${keyFingerprint(stranger.publicKey)}`) as unknown });
  expect(!result.ok && result.message).toContain(`accepts keys alice (${key.fingerprint})`);
  // Claiming a listed key with a stranger's signature does not help either.
  const forged = signDecision({ publicKey: key.publicKey, sign: stranger.sign }, { workflowId, pending, choice: 'always' });
  expect(check(forged).ok).toBe(false);
});

test('unsigned decisions are refused by default and accepted, marked unsigned, only when the session opts in', () => {
  const { check } = setup();
  const unsigned = { approvalId: 'ap-3', choice: 'once', decidedBy: 'cli:root' };
  const refused = check(unsigned);
  expect(refused).toEqual({ ok: false, message: expect.stringMatching(/^Approval decisions must be signed by an approver key .*accepts keys alice \(ed25519:[0-9a-f]{16}\)\. Unsigned decisions are accepted only with approvals\.accept_unsigned$/) as unknown });
  expect(check(unsigned, { acceptUnsigned: true })).toEqual({ ok: true, decidedBy: 'unsigned:cli:root' });
  expect(check({ approvalId: 'ap-3', choice: 'once' }, { acceptUnsigned: true })).toEqual({ ok: true, decidedBy: 'unsigned:temporal-ui' });
  // A bad signature is never downgraded to "unsigned" under accept_unsigned.
  const stranger = loadApproverKey(home(), { create: true, name: 'mallory' });
  expect(check(signDecision(stranger, { workflowId, pending, choice: 'once' }), { acceptUnsigned: true }).ok).toBe(false);
});

test('the signed payload is a header line and a fixed-order JSON array, so any signer can rebuild it', () => {
  const text = new TextDecoder().decode(decisionPayload({ workflowId, pending, choice: 'once', publicKey: 'ab'.repeat(32), signedAt: 't' }));
  const [header, body] = text.split('\n');
  expect(header).toBe('hermes-temporal approval decision v1');
  const parts = JSON.parse(body!) as string[];
  expect(parts).toHaveLength(9);
  expect(parts.slice(0, 3)).toEqual([workflowId, 'ap-3', pending.requestedAt]);
  expect(parts[3]).toMatch(/^[0-9a-f]{64}$/);
  expect(parts.slice(4)).toEqual(['once', '', 'ab'.repeat(32), 't', '']);
});

test('malformed signatures and over-long reasons are refused with a clear reason', () => {
  const base = { approvalId: 'ap-1', choice: 'once' };
  expect(() => parseApprovalDecision({ ...base, signature: 'yes' })).toThrow(/signature must be an object/);
  expect(() => parseApprovalDecision({ ...base, signature: { publicKey: 'xyz', signedAt: 't', value: 'a'.repeat(128) } })).toThrow(/publicKey must be 64/);
  expect(() => parseApprovalDecision({ ...base, signature: { publicKey: 'a'.repeat(64), signedAt: 't', value: 'a' } })).toThrow(/value must be 128/);
  expect(() => parseApprovalDecision({ ...base, reason: 'x'.repeat(1001) })).toThrow(/at most 1000 characters/);
});

test('the key pair is created once, private (0600 in a 0700 folder), and refused when others can read it', () => {
  const dir = home();
  const first = loadApproverKey(dir, { create: true, name: 'ops' });
  expect(first.created).toBe(true);
  const files = approverKeyFiles(dir);
  expect(statSync(files.folder).mode & 0o777).toBe(0o700);
  expect(statSync(files.privateKeyFile).mode & 0o777).toBe(0o600);
  expect(readFileSync(files.privateKeyFile, 'utf8')).toMatch(/^-----BEGIN PRIVATE KEY-----/);
  expect(readFileSync(files.publicKeyFile, 'utf8')).toBe(`${first.publicKey} ops\n`);
  const again = loadApproverKey(dir, { create: true });
  expect(again).toMatchObject({ created: false, publicKey: first.publicKey, name: 'ops' });
  expect(() => loadApproverKey(home())).toThrow(/No approver key at .*approver init/);
  chmodSync(files.privateKeyFile, 0o644);
  expect(() => loadApproverKey(dir)).toThrow(/readable by others \(mode 644\)/);
  const replaced = replaceApproverKey(dir, 'ops2');
  expect(replaced.publicKey).not.toBe(first.publicKey);
  expect(replaced.name).toBe('ops2');
});

test('a session accepts this machine\'s key plus the configured approvers, public keys only, without duplicates', () => {
  const dir = home();
  const local = loadApproverKey(dir, { create: true, name: 'me' });
  const remote = 'AB'.repeat(32);
  const approvers = sessionApprovers(dir, [{ name: 'ops', public_key: remote }, { name: 'me-again', public_key: local.publicKey }]);
  expect(approvers).toEqual([{ name: 'me', publicKey: local.publicKey }, { name: 'ops', publicKey: remote.toLowerCase() }]);
  expect(JSON.stringify(approvers)).not.toContain('PRIVATE');
});

test('a remembered verification answers only for the very decision that verified: tampered copies are checked afresh', () => {
  const { key, approvers } = setup();
  const verified = new VerifiedDecisions();
  const check = (decision: unknown, on = pending) =>
    verified.verify(parseApprovalDecision(JSON.parse(JSON.stringify(decision))), { workflowId, pending: on, approvers, acceptUnsigned: false });
  const decision = signDecision(key, { workflowId, pending, choice: 'deny', reason: 'no', via: 'cli:alice' });
  expect(check(decision)).toEqual({ ok: true, decidedBy: 'key:alice via cli:alice' });
  expect(check(decision)).toEqual({ ok: true, decidedBy: 'key:alice via cli:alice' });
  for (const tampered of [
    { ...decision, choice: 'always' },
    { ...decision, reason: 'ok then' },
    { ...decision, signature: { ...decision.signature, via: 'cli:bob' } },
  ]) {
    expect(check(tampered).ok).toBe(false);
  }
  // The same signed decision for a request that came again under the same id, or for another command.
  expect(check(decision, { ...pending, requestedAt: '2026-12-01T11:00:00.000Z' }).ok).toBe(false);
  expect(check(decision, { ...pending, command: 'rm -rf /' }).ok).toBe(false);
  // A refusal is never remembered as a success, and an unsigned decision is never remembered at all.
  expect(check({ ...decision, signature: undefined }).ok).toBe(false);
});
