// `pending`, `approve`, `deny` and `serve-approvals`: answering approvals of sessions that run
// elsewhere (detached, on other workers), from the command line or a signed webhook.
import os from 'node:os';
import type { Command } from 'commander';
import type { ApprovalChoice, PendingApproval } from '../../approval-signals/approval-types';
import { startApprovalServer } from '../../approval-signals/approval-server';
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
  await withConnection(async (connection) => {
    const id = approvalId ?? (await pendingOf(connection, sessionId))[0]?.approvalId;
    if (!id) throw new Error(`Session ${sessionId} has no pending approval`);
    const result = await connection.client.workflow.getHandle(workflowIdFor(sessionId)).executeUpdate(decideApprovalUpdate, {
      args: [{ approvalId: id, choice, ...(flags.reason ? { reason: flags.reason } : {}), decidedBy: `cli:${os.userInfo().username}` }],
    });
    if (flags.json) return console.log(JSON.stringify({ sessionId, ...result }));
    const applied = result.applied === 'deny' ? 'denied' : `approved (${result.applied})`;
    console.log(`${sessionId} ${result.approvalId}: ${applied}${result.applied !== choice ? ` — asked for ${choice}` : ''}`);
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
      const connection = await connectTemporal(config, { allowEmbedded: false });
      const server = await startApprovalServer({ client: connection.client, secret, workflowIdFor, host: flags.host, port: Number(flags.port) });
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
