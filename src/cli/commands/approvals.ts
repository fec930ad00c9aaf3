// `pending`, `approve`, `deny` and `serve-approvals`: answering approvals of sessions that run
// elsewhere (detached, on other workers), from the command line or a signed webhook. Every
// decision is signed with the approver key under the hermes home.
import os from 'node:os';
import type { Command } from 'commander';
import type { ApprovalChoice, PendingApproval } from '../../approval-signals/approval-types';
import { startApprovalServer } from '../../approval-signals/approval-server';
import { loadApproverKey, signDecision } from '../../approval-signals/approver-key';
import { decideApprovalUpdate, pendingApprovalsQuery } from '../../approval-signals/definitions';
import { loadConfig } from '../../config/load';
import { createSecretRedactor } from '../../environments/secret-redaction';
import { connectTemporal, type TemporalConnection } from '../../temporal/connection';
import { workflowIdFor } from '../../temporal/sessions';

async function withConnection<T>(action: (connection: TemporalConnection) => Promise<T>): Promise<T> {
  const connection = await connectTemporal(loadConfig(), { allowEmbedded: false });
  try {
    return await action(connection);
  } finally {
    await connection.close();
  }
}

async function pendingOf(connection: TemporalConnection, sessionId: string): Promise<PendingApproval[]> {
  return connection.client.workflow.getHandle(workflowIdFor(sessionId)).query(pendingApprovalsQuery);
}

async function decide(sessionId: string, approvalId: string | undefined, choice: ApprovalChoice, flags: { reason?: string; json?: boolean }) {
  const config = loadConfig();
  const approver = loadApproverKey(config.home, { create: true });
  if (flags.reason && flags.reason.length > 1000) throw new Error('--reason must be at most 1000 characters');
  await withConnection(async (connection) => {
    // The signature binds this very pending approval (its id, requestedAt and command), so read it first.
    const pending = await pendingOf(connection, sessionId);
    const approval = approvalId ? pending.find((candidate) => candidate.approvalId === approvalId) : pending[0];
    if (!approval) {
      const known = pending.map((candidate) => candidate.approvalId);
      throw new Error(`Session ${sessionId} has no pending approval${approvalId ? ` '${approvalId}'` : ''}${known.length ? ` (pending: ${known.join(', ')})` : ''}`);
    }
    const handle = connection.client.workflow.getHandle(workflowIdFor(sessionId));
    const decision = signDecision(approver, {
      workflowId: handle.workflowId,
      pending: approval,
      choice,
      ...(flags.reason ? { reason: flags.reason } : {}),
      via: `cli:${os.userInfo().username}`,
    });
    const result = await handle.executeUpdate(decideApprovalUpdate, { args: [decision] });
    if (flags.json) return console.log(JSON.stringify({ sessionId, ...result }));
    const applied = result.applied === 'deny' ? 'denied' : `approved (${result.applied})`;
    console.log(`${sessionId} ${result.approvalId}: ${applied} by ${result.decidedBy}${result.applied !== choice ? ` — asked for ${choice}` : ''}`);
  });
}

export function registerApprovalCommands(program: Command): void {
  program
    .command('pending')
    .description('List approvals waiting for a decision (one session, or every running session)')
    .argument('[sessionId]')
    .option('--json', 'print JSON')
    .action(async (sessionId: string | undefined, flags: { json?: boolean }) => {
      await withConnection(async (connection) => {
        const sessions = sessionId
          ? [sessionId]
          : await listAwaiting(connection);
        const rows: (PendingApproval & { sessionId: string })[] = [];
        for (const id of sessions) for (const approval of await pendingOf(connection, id)) rows.push({ sessionId: id, ...approval });
        // Shown as the terminal prompt shows them: this user's secrets (variables, config keys) hidden.
        const redactor = createSecretRedactor({ env: process.env, config: loadConfig() });
        if (flags.json) return console.log(JSON.stringify(redactor.redactValue(rows), null, 2));
        if (!rows.length) return console.log('No pending approvals.');
        for (const row of rows) {
          console.log(`${row.sessionId} ${row.approvalId}  ${row.description}  (expires ${row.expiresAt})`);
          console.log(`    ${redactor.redact(row.command).split('\n').join('\n    ')}`);
          if (row.refusedDecision) console.log(`    (${row.refusedDecision})`);
        }
      });
    });

  program
    .command('approve')
    .description('Approve a pending command (the oldest one when no approval id is given)')
    .argument('<sessionId>')
    .argument('[approvalId]')
    .option('--once', 'this command only (default)')
    .option('--session', 'this kind of command for the rest of the session')
    .option('--always', 'add it to the permanent allowlist')
    .option('--json', 'print JSON')
    .action(async (sessionId: string, approvalId: string | undefined, flags: { session?: boolean; always?: boolean; json?: boolean }) => {
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
    .action(async (sessionId: string, approvalId: string | undefined, flags: { reason?: string; json?: boolean }) => {
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
      const connection = await connectTemporal(config, { allowEmbedded: false });
      const server = await startApprovalServer({ client: connection.client, secret, approver, workflowIdFor, host: flags.host, port: Number(flags.port) });
      console.log(`Signing accepted decisions as approver ${approver.name} (${approver.fingerprint}).`);
      console.log(`Accepting signed approval decisions at ${server.url} (POST {sessionId, approvalId, choice, reason?}). Ctrl+C stops.`);
      await new Promise<void>((resolve) => process.once('SIGINT', resolve));
      await server.close();
      await connection.close();
    });
}

async function listAwaiting(connection: TemporalConnection): Promise<string[]> {
  const ids: string[] = [];
  const query = "ExecutionStatus = 'Running' AND HermesPendingApprovals > 0";
  for await (const workflow of connection.client.workflow.list({ query })) ids.push(workflow.workflowId.replace(/^hermes-session-/, ''));
  return ids;
}
