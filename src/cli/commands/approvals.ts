// `pending`, `approve`, `deny` and `serve-approvals`: answering approvals of sessions that run
// elsewhere (detached, on other workers), from the command line or a signed webhook. Every
// decision is signed with the approver key under the hermes home.
import os from 'node:os';
import type { Command } from 'commander';
import type { Client } from '@temporalio/client';
import type { ApprovalChoice } from '../../approval-signals/approval-types';
import { startApprovalServer } from '../../approval-signals/approval-server';
import { loadApproverKey, signDecision } from '../../approval-signals/approver-key';
import { approvalDecisionSignal, decideApprovalUpdate, pendingApprovalsQuery } from '../../approval-signals/definitions';
import type { MemoPendingApproval } from '../../approval-signals/pending-approvals-memo';
import { firstLineOf, visibleText } from '../../approval-signals/visible-text';
import { oneLine } from '../../approval-signals/shown-call';
import { loadConfig } from '../../config/load';
import { createSecretRedactor } from '../../environments/secret-redaction';
import { connectTemporalClient, type TemporalClientConnection } from '../../temporal/connection';
import { bounded, CLI_CALL_TIMEOUT_MS, DeadlineError, noWorkerMessage, reachSession, type SessionReach } from '../session-reach';
import { workflowIdFor } from '../../temporal/sessions';

async function withConnection<T>(action: (connection: TemporalClientConnection) => Promise<T>): Promise<T> {
  const connection = await connectTemporalClient(loadConfig(), { connectTimeoutMs: CLI_CALL_TIMEOUT_MS });
  try {
    return await action(connection);
  } finally {
    await connection.close();
  }
}

/** Only the fields every approval shows, as the memo keeps them too. */
type ShownApproval = MemoPendingApproval;

interface PendingView {
  approvals: ShownApproval[];
  /** Set when no worker answered and the approvals come from the workflow's memo. */
  note?: string;
}

/**
 * The session's pending approvals: from its worker (a query) when one polls, else as the
 * workflow recorded them in its memo, with a note saying so. Never waits longer than seconds.
 */
async function pendingOf(client: Client, reach: SessionReach): Promise<PendingView> {
  if (reach.workerPolling) {
    try {
      return { approvals: await bounded(client, `read the pending approvals of session ${reach.sessionId}`, () => reach.handle.query(pendingApprovalsQuery)) };
    } catch (error) {
      // A worker seen recently may have gone since (the server remembers pollers for a while):
      // a timed-out or failed query falls back to what the workflow recorded.
      const why = error instanceof Error ? error.message : String(error);
      return fromMemo(`${why}: no worker answered on task queue '${reach.taskQueue}'`);
    }
  }
  return fromMemo(noWorkerMessage(reach));

  function fromMemo(why: string): PendingView {
    if (!reach.memoPending) throw new Error(`${why}. This session keeps no record of what it asks outside its worker, so a worker must run to read it.`);
    return { approvals: reach.memoPending, note: `${why}; shown as the workflow recorded them` };
  }
}

/** How long `approve` and `deny` wait, by default, for the session to answer before leaving the decision with the server. */
const DEFAULT_ANSWER_WAIT_SECONDS = 15;

interface DecideFlags {
  reason?: string;
  json?: boolean;
  wait?: string;
}

async function decide(sessionId: string, approvalId: string | undefined, choice: ApprovalChoice, flags: DecideFlags) {
  const config = loadConfig();
  const approver = loadApproverKey(config.home, { create: true });
  if (flags.reason && flags.reason.length > 1000) throw new Error('--reason must be at most 1000 characters');
  const waitSeconds = answerWaitSeconds(flags.wait);
  await withConnection(async ({ client }) => {
    // The signature binds this very pending approval (its id, requestedAt and command), so read it
    // first: from the worker, or from what the workflow itself recorded when no worker runs.
    const { reach, pending, approval } = await locateApproval(client, sessionId, approvalId);
    sessionId = reach.sessionId;
    // With no id, an approval must be the only one waiting: the oldest may not be the one the
    // person read (answered elsewhere meanwhile, or one of many the model asked for at once).
    if (!approvalId && choice !== 'deny' && pending.approvals.length > 1) {
      const ids = pending.approvals.map((candidate) => candidate.approvalId);
      throw new Error(`Session ${sessionId} has ${ids.length} pending approvals (${ids.join(', ')}): name the one to approve, e.g. \`hermes-temporal approve ${sessionId} ${ids[0]}\` (see them with \`hermes-temporal pending ${sessionId}\`)`);
    }
    const decision = signDecision(approver, {
      workflowId: reach.handle.workflowId,
      pending: approval,
      choice,
      ...(flags.reason ? { reason: flags.reason } : {}),
      via: `cli:${os.userInfo().username}`,
    });
    // A signal needs no worker: the server records it and the session applies it (checking the
    // signature) as soon as a worker serves it. It cannot answer, so say what is known.
    const recordBySignal = async (note: string) => {
      await bounded(client, `send the decision to session ${sessionId}`, () => reach.handle.signal(approvalDecisionSignal, decision));
      if (flags.json) return console.log(JSON.stringify({ sessionId, approvalId: approval.approvalId, choice, recorded: 'signal', note }));
      console.log(`${sessionId} ${approval.approvalId}: ${choice === 'deny' ? 'denial' : `approval (${choice})`} recorded by the server for \`${firstLineOf(redactedCommand(approval.command))}\``);
      console.log(`  ${note}. The session applies the decision when a worker serves it.`);
    };
    if (pending.note) return recordBySignal(pending.note);
    let result;
    try {
      result = await bounded(client, `deliver the decision to session ${sessionId}`, () => reach.handle.executeUpdate(decideApprovalUpdate, { args: [decision] }), waitSeconds * 1000);
    } catch (error) {
      if (!(error instanceof DeadlineError)) throw error;
      // A worker with a deep backlog answers late. The same signed decision, sent again as a
      // signal, is kept by the server; should the update still land first, the session applies
      // that one and records the signal's copy as already decided.
      return recordBySignal(`The session did not answer within ${waitSeconds} s (its worker is busy)`);
    }
    if (flags.json) return console.log(JSON.stringify({ sessionId, ...result }));
    const applied = result.applied === 'deny' ? 'denied' : `approved (${result.applied})`;
    console.log(`${sessionId} ${result.approvalId}: ${applied} by ${result.decidedBy}${result.applied !== choice ? ` — asked for ${choice}` : ''}`);
  });
}

function answerWaitSeconds(flag: string | undefined): number {
  if (flag === undefined) return DEFAULT_ANSWER_WAIT_SECONDS;
  const seconds = Number(flag);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 3600) throw new Error(`--wait must be a number of seconds above 0 and at most 3600, not '${flag}'`);
  return seconds;
}

/**
 * The pending approval a decision is for: in the named session, or, when that session is the root
 * of a delegation tree and does not have it, in the one sub-agent below it that does.
 */
async function locateApproval(client: Client, sessionId: string, approvalId: string | undefined) {
  const reach = await reachSession(client, sessionId);
  const pending = await pendingOf(client, reach);
  const own = approvalId ? pending.approvals.find((candidate) => candidate.approvalId === approvalId) : pending.approvals[0];
  if (own) return { reach, pending, approval: own };
  const found: { reach: SessionReach; pending: PendingView; approval: ShownApproval }[] = [];
  for (const descendant of await descendantsAwaiting(client, sessionId)) {
    const descendantReach = await reachSession(client, descendant).catch(() => undefined);
    if (!descendantReach) continue;
    const view = await pendingOf(client, descendantReach).catch(() => undefined);
    const match = view && (approvalId ? view.approvals.find((candidate) => candidate.approvalId === approvalId) : view.approvals[0]);
    if (view && match) found.push({ reach: descendantReach, pending: view, approval: match });
  }
  if (found.length === 1 && found[0]) return found[0];
  if (found.length > 1) {
    const choices = found.map((entry) => `${entry.reach.sessionId} ${entry.approval.approvalId}`).join(', ');
    throw new Error(`Several sub-agents of session ${sessionId} wait for approval${approvalId ? ` '${approvalId}'` : ''} (${choices}): name the sub-agent's session, e.g. \`hermes-temporal approve ${found[0]?.reach.sessionId} ${found[0]?.approval.approvalId}\``);
  }
  const known = pending.approvals.map((candidate) => candidate.approvalId);
  throw new Error(`Session ${sessionId} has no pending approval${approvalId ? ` '${approvalId}'` : ''}${known.length ? ` (pending: ${known.join(', ')})` : ''}`);
}

/** This machine's secrets hidden, but nothing that could be code: what is approved is shown as it runs. */
function redactedCommand(command: string): string {
  return createSecretRedactor({ env: process.env, config: loadConfig() }).redactForApproval(command);
}

export function registerApprovalCommands(program: Command): void {
  program
    .command('pending')
    .description('List approvals waiting for a decision (one session, or every running session)')
    .argument('[sessionId]')
    .option('--json', 'print JSON')
    .action(async (sessionId: string | undefined, flags: { json?: boolean }) => {
      await withConnection(async ({ client }) => {
        // A root's pending approvals include those of every sub-agent below it.
        const sessions = sessionId ? [sessionId, ...(await descendantsAwaiting(client, sessionId))] : await listAwaiting(client);
        const rows: (ShownApproval & { sessionId: string })[] = [];
        const notes: string[] = [];
        for (const id of sessions) {
          const view = await pendingOf(client, await reachSession(client, id));
          if (view.note) notes.push(view.note);
          for (const approval of view.approvals) rows.push({ sessionId: id, ...approval });
        }
        // Shown as the terminal prompt shows them: this user's secrets (variables, config keys) hidden,
        // but never text that could be code, which would let the model hide what runs.
        const redactor = createSecretRedactor({ env: process.env, config: loadConfig() });
        if (flags.json) return console.log(JSON.stringify(rows.map((row) => ({ ...redactor.redactValue(row), command: redactor.redactForApproval(row.command) })), null, 2));
        for (const note of notes) console.error(`note: ${note}`);
        if (!rows.length) return console.log('No pending approvals.');
        for (const row of rows) console.log(pendingLines(row, redactor.redactForApproval));
      });
    });

  program
    .command('approve')
    .description('Approve a pending command (without an approval id: the only one pending)')
    .argument('<sessionId>')
    .argument('[approvalId]')
    .option('--once', 'this command only (default)')
    .option('--session', 'this kind of command for the rest of the session')
    .option('--always', 'add it to the permanent allowlist')
    .option('--json', 'print JSON')
    .option('--wait <seconds>', `how long to wait for the session's answer before leaving the decision with the server (default ${DEFAULT_ANSWER_WAIT_SECONDS})`)
    .action(async (sessionId: string, approvalId: string | undefined, flags: DecideFlags & { session?: boolean; always?: boolean }) => {
      const choice: ApprovalChoice = flags.always ? 'always' : flags.session ? 'session' : 'once';
      await decide(sessionId, approvalId, choice, flags);
    });

  program
    .command('deny')
    .description('Deny a pending command (the oldest one when no approval id is given)')
    .argument('<sessionId>')
    .argument('[approvalId]')
    .option('--reason <text>', 'told to the model')
    .option('--json', 'print JSON')
    .option('--wait <seconds>', `how long to wait for the session's answer before leaving the decision with the server (default ${DEFAULT_ANSWER_WAIT_SECONDS})`)
    .action(async (sessionId: string, approvalId: string | undefined, flags: DecideFlags) => {
      await decide(sessionId, approvalId, 'deny', flags);
    });

  program
    .command('serve-approvals')
    .description('Serve an HTTP endpoint that turns signed decisions into approvals (needs approvals.webhook.secret)')
    .option('--port <n>', 'port', '8788')
    .option('--host <ip>', 'address to bind', '127.0.0.1')
    .action(async (flags: { port: string; host: string }) => {
      const config = loadConfig();
      const secret = config.approvals.webhook.secret;
      if (!secret) throw new Error('Set approvals.webhook.secret (HERMES__APPROVALS__WEBHOOK__SECRET): decisions must be signed');
      // The webhook's HMAC authenticates the caller; this server then signs as the approver key here.
      const approver = loadApproverKey(config.home, { create: true });
      const connection = await connectTemporalClient(config, { connectTimeoutMs: CLI_CALL_TIMEOUT_MS });
      const server = await startApprovalServer({ client: connection.client, secret, approver, workflowIdFor, host: flags.host, port: Number(flags.port) });
      console.log(`Signing accepted decisions as approver ${approver.name} (${approver.fingerprint}).`);
      console.log(`Accepting signed approval decisions at ${server.url} (POST {sessionId, approvalId, choice, reason?}). Ctrl+C (or SIGTERM) stops.`);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await server.close();
      await connection.close();
    });
}

/** Running sub-agents below a root session that wait for approval. */
async function descendantsAwaiting(client: Client, rootSessionId: string): Promise<string[]> {
  if (!/^[A-Za-z0-9_.-]{1,200}$/.test(rootSessionId)) return [];
  const awaiting = await listAwaiting(client, `HermesRootSession = '${rootSessionId}'`);
  return awaiting.filter((id) => id !== rootSessionId);
}

async function listAwaiting(client: Client, extraCondition?: string): Promise<string[]> {
  const query = `ExecutionStatus = 'Running' AND HermesPendingApprovals > 0${extraCondition ? ` AND ${extraCondition}` : ''}`;
  return bounded(client, 'list the sessions awaiting approval', async () => {
    const ids: string[] = [];
    for await (const workflow of client.workflow.list({ query })) ids.push(workflow.workflowId.replace(/^hermes-session-/, ''));
    return ids;
  });
}

/** How `pending` shows one approval: secrets hidden, and nothing the terminal would interpret. */
export function pendingLines(row: ShownApproval & { sessionId: string }, redact: (text: string) => string): string {
  const lines = [
    `${row.sessionId} ${row.approvalId}  ${oneLine(row.description)}  (expires ${row.expiresAt})`,
    `    ${visibleText(redact(row.command)).split('\n').join('\n    ')}`,
  ];
  if (row.refusedDecision) lines.push(`    (${oneLine(row.refusedDecision)})`);
  return lines.join('\n');
}
