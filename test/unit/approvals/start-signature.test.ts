// A root session runs only when a key the worker trusts signed its whole input for its workflow
// id, close to when it started. Anything else is refused with a reason.
import { loadApproverKey, signSessionStart } from '../../../src/approval-signals/approver-key';
import { canonicalJson, verifyStartSignature } from '../../../src/approval-signals/start-signature';
import { createStartVerificationActivity } from '../../../src/activities/start-verification';
import { silentLogger } from '../../../src/logging';
import type { SessionStore } from '../../../src/store/session-store';
import type { SessionInput } from '../../../src/workflows/session-types';
import { testConfig } from '../../helpers/session-harness';
import { tempDir } from '../../helpers/temp-dirs';

const workflowId = 'hermes-session-abc';
const signedAt = new Date('2026-12-04T10:00:00.000Z');
const runStartedAt = '2026-12-04T10:00:01.000Z';
const input: SessionInput = {
  sessionId: 'abc',
  task: 'tidy the repo',
  model: 'm',
  environment: { backend: 'local', cwd: '/work/project', sessionId: 'abc' },
  maxTurns: 20,
  approvals: { mode: 'manual', approvers: [{ name: 'alice', publicKey: 'a'.repeat(64) }] },
};

function setup() {
  const key = loadApproverKey(tempDir('hermes-starter-'), { create: true, name: 'alice' });
  const trusted = [{ name: key.name, publicKey: key.publicKey }];
  const signed = (body: SessionInput = input, id = workflowId): SessionInput => ({ ...body, startSignature: signSessionStart(key, id, body, signedAt) });
  const check = (candidate: SessionInput, overrides: Partial<{ workflowId: string; runStartedAt: string }> = {}) =>
    verifyStartSignature({ workflowId, input: JSON.parse(JSON.stringify(candidate)) as SessionInput, runStartedAt, ...overrides }, trusted);
  return { key, trusted, signed, check };
}

test('a start signed by a trusted key verifies, whatever order the payload converter gave its keys', () => {
  const { signed, check } = setup();
  const start = signed();
  const reordered = Object.fromEntries(Object.entries(start).reverse()) as unknown as SessionInput;
  expect(check(reordered)).toEqual({ ok: true, startedBy: 'alice' });
});

test('an unsigned start, a malformed signature and an untrusted key are refused', () => {
  const { signed, check } = setup();
  expect(check(input)).toEqual({ ok: false, reason: 'it carries no start signature' });
  const start = signed();
  expect(check({ ...start, startSignature: { ...start.startSignature!, value: 'zz' } })).toEqual({ ok: false, reason: 'its start signature is malformed' });
  const stranger = loadApproverKey(tempDir('hermes-stranger-'), { create: true, name: 'mallory' });
  const byStranger = { ...input, startSignature: signSessionStart(stranger, workflowId, input, signedAt) };
  expect(check(byStranger)).toEqual({ ok: false, reason: expect.stringMatching(/^it is signed by ed25519:[0-9a-f]{16}, a key this worker does not trust \(it trusts alice/) as unknown });
});

test('changing anything a session runs with after signing breaks the signature', () => {
  const { signed, check } = setup();
  const start = signed();
  for (const changed of [
    { ...start, approvals: { ...start.approvals, mode: 'off' as const } },
    { ...start, approvals: { ...start.approvals, approvers: [{ name: 'mallory', publicKey: 'b'.repeat(64) }] } },
    { ...start, environment: { ...start.environment, cwd: '/' } },
    { ...start, baseUrl: 'http://127.0.0.1:9/v1' },
    { ...start, resume: { approvals: { sessionApprovals: ['rm -rf *'], allowlist: [], approvalCounter: 0 } } as unknown as SessionInput['resume'] },
  ]) {
    expect(check(changed)).toEqual({ ok: false, reason: expect.stringMatching(/signature by alice does not match it/) as unknown });
  }
});

test('a signed start is good for its own workflow id, near the time it was made', () => {
  const { signed, check } = setup();
  const start = signed();
  expect(check(start, { workflowId: 'hermes-session-other' })).toMatchObject({ ok: false, reason: expect.stringMatching(/signed for another workflow id/) as unknown });
  expect(check(start, { runStartedAt: '2026-12-04T10:11:00.000Z' })).toMatchObject({ ok: false, reason: expect.stringMatching(/more than 10 minutes from its start/) as unknown });
  expect(check(start, { runStartedAt: '2026-12-04T09:55:00.000Z' })).toEqual({ ok: true, startedBy: 'alice' });
});

test('canonical JSON sorts keys at every level and leaves out undefined members', () => {
  expect(canonicalJson({ b: [1, { d: 1, c: undefined, a: 'x' }], a: null })).toBe('{"a":null,"b":[1,{"a":"x","d":1}]}');
});

describe('the worker checks a start against its own config and store', () => {
  const storeWith = (known: string[]) => ({ getSession: async (id: string) => (known.includes(id) ? { sessionId: id } : undefined) }) as unknown as SessionStore;

  test("trusts its home's approver key and approvals.approvers, not the keys the input names", async () => {
    const home = tempDir('hermes-worker-home-');
    const own = loadApproverKey(home, { create: true });
    const operator = loadApproverKey(tempDir('hermes-operator-'), { create: true, name: 'ops' });
    const stranger = loadApproverKey(tempDir('hermes-stranger-'), { create: true, name: 'mallory' });
    const config = testConfig({ approvals: { approvers: [{ name: 'ops', public_key: operator.publicKey }] } }, { home, cwd: tempDir('hermes-cwd-') });
    const activity = createStartVerificationActivity({ config, store: storeWith([]), logger: silentLogger });
    const verifySessionStart = (request: Parameters<typeof activity.verifySessionStart>[0]) => activity.verifySessionStart(request);
    const startedNow = new Date().toISOString();
    const request = (key: typeof own, body: SessionInput = input) => ({ workflowId, input: { ...body, startSignature: signSessionStart(key, workflowId, body) }, runStartedAt: startedNow });
    expect(await verifySessionStart(request(own))).toEqual({ ok: true, startedBy: own.name });
    expect(await verifySessionStart(request(operator))).toEqual({ ok: true, startedBy: 'ops' });
    // The input lists mallory as an approver: that makes her no starter.
    const naming = { ...input, approvals: { approvers: [{ name: 'mallory', publicKey: stranger.publicKey }] } };
    expect(await verifySessionStart(request(stranger, naming))).toMatchObject({ ok: false });
  });

  test('refuses a signed start whose session has run already, and runs anything only when told to accept unsigned starts', async () => {
    const home = tempDir('hermes-worker-home-');
    const own = loadApproverKey(home, { create: true });
    const dirs = { home, cwd: tempDir('hermes-cwd-') };
    const startedNow = new Date().toISOString();
    const request = { workflowId, input: { ...input, startSignature: signSessionStart(own, workflowId, input) }, runStartedAt: startedNow };
    const strict = createStartVerificationActivity({ config: testConfig({}, dirs), store: storeWith(['abc']), logger: silentLogger });
    expect(await strict.verifySessionStart(request)).toEqual({ ok: false, reason: 'session abc has run already: a signed start is good for one new session (start another id)' });
    const open = createStartVerificationActivity({ config: testConfig({ approvals: { accept_unsigned_starts: true } }, dirs), store: storeWith([]), logger: silentLogger });
    expect(await open.verifySessionStart({ workflowId, input, runStartedAt: startedNow })).toMatchObject({ ok: true });
  });
});
