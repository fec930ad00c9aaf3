// Only an approver can answer: a process that reaches the Temporal server (the SDK, the real
// `temporal` CLI) but holds no approver key cannot approve, by update or by signal; the real
// `hermes-temporal approve` signs and is recorded as the verified approver. The Temporal UI's
// unsigned signal works only where the operator opted in with approvals.accept_unsigned.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { readCommandAllowlist } from '../../src/approval-signals/allowlist-file';
import type { PendingApproval } from '../../src/approval-signals/approval-types';
import { startApprovalServer } from '../../src/approval-signals/approval-server';
import { loadApproverKey } from '../../src/approval-signals/approver-key';
import { approvalAuditQuery, approvalDecisionSignal, decideApprovalUpdate, pendingApprovalsQuery } from '../../src/approval-signals/definitions';
import { SIGNATURE_HEADER, signBody } from '../../src/approval-signals/webhook';
import { workflowIdFor, type SessionHandle } from '../../src/temporal/sessions';
import { signedDecision } from '../helpers/approver';
import { CLI_ENTRY, requireBuild } from '../helpers/cli';
import { connectHarness, sessionIdOf, tempDir, toolResults, withScriptedSession, type Harness } from '../helpers/session-harness';
import { waitFor } from '../helpers/wait';

const run = promisify(execFile);

let harness: Harness;
beforeAll(async () => {
  requireBuild();
  harness = await connectHarness();
});
afterAll(async () => {
  await harness.close();
});

const turnOf = (command: string) => ({ tool_calls: [{ name: 'terminal', arguments: { command } }] });
const forged = { approvalId: 'ap-1', choice: 'always', decidedBy: 'cli:root' } as const;

async function pendingApproval(handle: SessionHandle, where: (approval: PendingApproval) => boolean = () => true): Promise<PendingApproval> {
  let found: PendingApproval | undefined;
  await waitFor(async () => Boolean((found = (await handle.query(pendingApprovalsQuery)).find(where))), { timeoutMs: 30_000, what: 'the pending approval' });
  return found as PendingApproval;
}

/** The real Temporal CLI, as a process that found TEMPORAL_ADDRESS would use it. */
async function temporalCli(args: string[]): Promise<{ code: number; output: string }> {
  const binary = process.env.TEMPORAL_CLI_PATH;
  if (!binary) throw new Error('TEMPORAL_CLI_PATH is not set: source /work/wt/services.env (or .ci/run) first');
  try {
    const { stdout, stderr } = await run(binary, [...args, '--address', harness.address, '--namespace', 'default'], { timeout: 30_000 });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : 1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

const acceptedUpdates = async (handle: SessionHandle) =>
  ((await handle.fetchHistory()).events ?? []).filter((event) => event.eventType === temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED).length;

test('a process with only Temporal access cannot approve; the signed `hermes-temporal approve` can', async () => {
  const script = { turns: [turnOf('rm -rf precious'), { content: 'deleted' }] };
  await withScriptedSession(harness, { script }, async ({ handle, store, config }) => {
    mkdirSync(path.join(config.session.cwd, 'precious'));
    await pendingApproval(handle);

    // The SDK update, claiming to be a human at the CLI: rejected by the validator, never in history.
    const update = await handle.executeUpdate(decideApprovalUpdate, { args: [forged] }).catch((error: unknown) => error);
    expect(update).toBeInstanceOf(WorkflowUpdateFailedError);
    expect((update as WorkflowUpdateFailedError).cause?.message).toMatch(
      /^Approval decisions must be signed by an approver key .*this session accepts keys \S+ \(ed25519:[0-9a-f]{16}\)\. Unsigned decisions are accepted only with approvals\.accept_unsigned$/,
    );

    // The same as a signal: dropped, and the refusal shows on the pending approval.
    await handle.signal(approvalDecisionSignal, forged);
    const refused = await pendingApproval(handle, (approval) => Boolean(approval.refusedDecision));
    expect(refused.refusedDecision).toMatch(/^Refused a decision at .*: Approval decisions must be signed/);

    // The real `temporal` CLI: the signal is delivered and ignored, the update is refused.
    const input = JSON.stringify(forged);
    const signal = await temporalCli(['workflow', 'signal', '--workflow-id', handle.workflowId, '--name', 'approvalDecision', '--input', input]);
    expect(signal.code).toBe(0);
    const cliUpdate = await temporalCli(['workflow', 'update', 'execute', '--workflow-id', handle.workflowId, '--name', 'decideApproval', '--input', input]);
    expect(cliUpdate.code).not.toBe(0);
    expect(cliUpdate.output).toMatch(/must be signed by an approver key/);

    // A key of its own (a home it made up) is just an unknown key.
    const strangerHome = tempDir('hermes-stranger-');
    const stranger = await signedDecision(handle, { home: strangerHome }, { approvalId: 'ap-1', choice: 'always' });
    const unknownKey = await handle.executeUpdate(decideApprovalUpdate, { args: [stranger] }).catch((error: unknown) => error);
    expect((unknownKey as WorkflowUpdateFailedError).cause?.message).toMatch(
      new RegExp(`signed by an unknown key ${loadApproverKey(strangerHome).fingerprint}; this session accepts keys`),
    );

    // serve-approvals on a machine whose key the session does not list: the HMAC passes, the decision does not.
    const secret = 'a-shared-secret-of-some-length';
    const endpoint = await startApprovalServer({ client: harness.client, secret, approver: loadApproverKey(strangerHome), workflowIdFor });
    try {
      const body = JSON.stringify({ sessionId: sessionIdOf(handle), approvalId: 'ap-1', choice: 'always', decidedBy: 'chat:mallory' });
      const answer = await fetch(endpoint.url, { method: 'POST', headers: { [SIGNATURE_HEADER]: signBody(secret, body) }, body });
      expect(answer.status).toBe(409);
      expect(((await answer.json()) as { error: string }).error).toMatch(/signed by an unknown key/);
    } finally {
      await endpoint.close();
    }

    // Still waiting; nothing ran, nothing was allowlisted, no decision reached history.
    // (Rejected updates leave no trace in the workflow: validators may not change state.)
    await waitFor(async () => (await handle.query(approvalAuditQuery)).length === 2, { timeoutMs: 10_000, what: 'the two refused signals in the audit' });
    expect((await handle.query(pendingApprovalsQuery)).map((approval) => approval.approvalId)).toEqual(['ap-1']);
    expect((await handle.describe()).searchAttributes).toMatchObject({ HermesStatus: ['awaiting_approval'] });
    expect((await handle.query(approvalAuditQuery)).every((entry) => entry.outcome === 'refused')).toBe(true);
    expect(existsSync(path.join(config.session.cwd, 'precious'))).toBe(true);
    expect(await readCommandAllowlist(path.join(config.home, 'config.yaml'))).toEqual([]);
    expect(await acceptedUpdates(handle)).toBe(0);

    // The operator's real CLI reads the pending approval, signs with the key in the home, and decides.
    const { stdout } = await run(process.execPath, [CLI_ENTRY, 'approve', sessionIdOf(handle), 'ap-1', '--json'], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, HERMES_TEMPORAL_HOME: config.home, TEMPORAL_ADDRESS: harness.address },
      cwd: config.session.cwd,
      timeout: 30_000,
    });
    const approver = loadApproverKey(config.home);
    expect(JSON.parse(stdout)).toEqual({
      sessionId: sessionIdOf(handle),
      approvalId: 'ap-1',
      choice: 'once',
      applied: 'once',
      decidedBy: `key:${approver.name} via cli:${os.userInfo().username}`,
    });
    expect(await handle.result()).toMatchObject({ status: 'completed' });
    expect((await toolResults(store, handle))[0]).toMatchObject({ exit_code: 0 });
    expect(existsSync(path.join(config.session.cwd, 'precious'))).toBe(false);
  });
});

test('approve leaves the decision with the server when the session does not answer in time; the session applies it once', async () => {
  const script = { turns: [turnOf('rm -rf answered-late'), { content: 'done' }] };
  await withScriptedSession(harness, { script }, async ({ handle, store, config }) => {
    mkdirSync(path.join(config.session.cwd, 'answered-late'));
    await pendingApproval(handle);
    const cli = (args: string[]) =>
      run(process.execPath, [CLI_ENTRY, ...args], {
        env: { PATH: process.env.PATH, HOME: process.env.HOME, HERMES_TEMPORAL_HOME: config.home, TEMPORAL_ADDRESS: harness.address },
        cwd: config.session.cwd,
        timeout: 30_000,
      });
    const badWait = await cli(['approve', sessionIdOf(handle), 'ap-1', '--wait', 'soon']).catch((error: { stderr?: string }) => error);
    expect(badWait.stderr).toMatch(/--wait must be a number of seconds above 0 and at most 3600, not 'soon'/);

    // A wait no worker can meet stands in for a worker with a deep backlog.
    const { stdout } = await cli(['approve', sessionIdOf(handle), 'ap-1', '--json', '--wait', '0.001']);
    expect(JSON.parse(stdout)).toMatchObject({ approvalId: 'ap-1', choice: 'once', recorded: 'signal', note: 'The session did not answer within 0.001 s (its worker is busy)' });
    expect(await handle.result()).toMatchObject({ status: 'completed' });
    expect((await toolResults(store, handle))[0]).toMatchObject({ exit_code: 0 });
    expect(existsSync(path.join(config.session.cwd, 'answered-late'))).toBe(false);
    // Decided once, by the signed key, whichever copy (update or signal) reached the session first.
    const decided = (await handle.query(approvalAuditQuery)).filter((entry) => entry.outcome === 'decided');
    expect(decided).toEqual([expect.objectContaining({ approvalId: 'ap-1', applied: 'once', decidedBy: expect.stringMatching(/^key:/) })]);
  });
});

test('with approvals.accept_unsigned the Temporal UI\'s unsigned signal decides, recorded as unsigned', async () => {
  const script = { turns: [turnOf('rm -rf via-ui'), { content: 'done' }] };
  await withScriptedSession(harness, { script, config: { approvals: { accept_unsigned: true } } }, async ({ handle, store }) => {
    await pendingApproval(handle);
    await handle.signal(approvalDecisionSignal, { approvalId: 'ap-1', choice: 'once', decidedBy: 'temporal-ui' });
    expect(await handle.result()).toMatchObject({ status: 'completed' });
    expect(await handle.query(approvalAuditQuery)).toMatchObject([{ approvalId: 'ap-1', outcome: 'decided', decidedBy: 'unsigned:temporal-ui' }]);
    expect((await toolResults(store, handle))[0]).toMatchObject({ exit_code: 0 });
  });
});

test('the approver keys survive continue-as-new: a later run still refuses the unsigned and accepts the signed', async () => {
  const script = { turns: [{ tool_calls: [{ name: 'terminal', arguments: { command: 'echo first run' } }] }, turnOf('rm -rf later'), { content: 'done' }] };
  await withScriptedSession(harness, { script, limits: { turnsPerRun: 1 } }, async ({ handle, store, config }) => {
    const pending = await pendingApproval(handle);
    // The approval waits in a later run of the same workflow.
    await waitFor(async () => (await harness.client.workflow.count(`WorkflowId = '${handle.workflowId}'`)).count >= 2, { timeoutMs: 10_000, what: 'a continued run' });
    const unsigned = await handle.executeUpdate(decideApprovalUpdate, { args: [{ ...forged, choice: 'once' }] }).catch((error: unknown) => error);
    expect((unsigned as WorkflowUpdateFailedError).cause?.message).toMatch(/must be signed by an approver key/);
    const result = await handle.executeUpdate(decideApprovalUpdate, { args: [await signedDecision(handle, config, { approvalId: pending.approvalId, choice: 'once' })] });
    expect(result.decidedBy).toBe(`key:${loadApproverKey(config.home).name} via test`);
    expect(await handle.result()).toMatchObject({ status: 'completed' });
    expect((await toolResults(store, handle)).map((entry) => entry.exit_code)).toEqual([0, 0]);
  });
});

test('approve with no approval id refuses while several wait: the oldest may not be the one the person read', async () => {
  const outside = tempDir('outside-');
  const write = (name: string) => ({ name: 'write_file', arguments: { path: path.join(outside, name), content: name } });
  const script = { turns: [{ tool_calls: [write('first'), write('second')] }, { content: 'done' }] };
  await withScriptedSession(harness, { script }, async ({ handle, config }) => {
    await waitFor(async () => (await handle.query(pendingApprovalsQuery)).length === 2, { timeoutMs: 30_000, what: 'both writes waiting' });
    const cli = (args: string[]) =>
      run(process.execPath, [CLI_ENTRY, ...args], {
        env: { PATH: process.env.PATH, HOME: process.env.HOME, HERMES_TEMPORAL_HOME: config.home, TEMPORAL_ADDRESS: harness.address },
        cwd: config.session.cwd,
        timeout: 30_000,
      });
    const blind = await cli(['approve', sessionIdOf(handle)]).catch((error: { stderr?: string }) => error);
    expect(blind.stderr).toMatch(/has 2 pending approvals \(ap-\d, ap-\d\): name the one to approve/);
    const waiting = await handle.query(pendingApprovalsQuery);
    expect(waiting.length).toBe(2);
    // Named, each goes; a denial needs no name (it runs nothing). The two writes ask in either order.
    const second = waiting.find((approval) => approval.command.includes('second'));
    await cli(['approve', sessionIdOf(handle), second?.approvalId ?? 'none']);
    await cli(['deny', sessionIdOf(handle)]);
    expect(await handle.result()).toMatchObject({ status: 'completed' });
    expect(existsSync(path.join(outside, 'second'))).toBe(true);
    expect(existsSync(path.join(outside, 'first'))).toBe(false);
  });
});
