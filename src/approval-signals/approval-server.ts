// `serve-approvals`: a small HTTP endpoint that turns an HMAC-signed decision
// `{sessionId, approvalId, choice, reason?, decidedBy?}` into the session's `decideApproval`
// update, signed with the approver key this server holds, and answers with what was applied
// (or why it was refused).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@temporalio/client';
import { isTemporalError } from '../temporal/error-names';
import type { ApprovalDecision } from './approval-types';
import { signDecision, type ApproverKey } from './approver-key';
import { decideApprovalUpdate, parseApprovalDecision, pendingApprovalsQuery } from './definitions';
import { SIGNATURE_HEADER, verifySignature } from './webhook';

const MAX_BODY_BYTES = 64 * 1024;

export interface ApprovalServer {
  url: string;
  close(): Promise<void>;
}

export async function startApprovalServer(options: {
  client: Client;
  secret: string;
  /** Signs the decisions the webhook's callers make (the session must list its public key). */
  approver: Pick<ApproverKey, 'publicKey' | 'sign'>;
  workflowIdFor: (sessionId: string) => string;
  host?: string;
  port?: number;
}): Promise<ApprovalServer> {
  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => reply(response, 500, { error: (error as Error).message }));
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (request.method === 'GET' && request.url === '/healthz') return reply(response, 200, { ok: true });
    if (request.method !== 'POST' || !['/', '/approvals'].includes(request.url ?? '')) {
      return reply(response, 404, { error: 'POST a decision to /approvals' });
    }
    const body = await readBody(request);
    if (body === undefined) return reply(response, 413, { error: `Body larger than ${MAX_BODY_BYTES} bytes` });
    const signature = request.headers[SIGNATURE_HEADER];
    if (!verifySignature(options.secret, body, Array.isArray(signature) ? signature[0] : signature)) {
      return reply(response, 401, { error: `Missing or wrong ${SIGNATURE_HEADER} signature` });
    }
    let sessionId: unknown;
    let asked: ApprovalDecision;
    try {
      const parsed = JSON.parse(body) as Record<string, unknown>;
      sessionId = parsed.sessionId;
      if (typeof sessionId !== 'string' || !sessionId) throw new TypeError('sessionId must be a non-empty string');
      const { signature: _ignored, ...unsigned } = parsed;
      asked = parseApprovalDecision(unsigned);
    } catch (error) {
      return reply(response, 400, { error: (error as Error).message });
    }
    try {
      const handle = options.client.workflow.getHandle(options.workflowIdFor(sessionId));
      // The signature binds the pending approval as the session holds it.
      const pending = await handle.query(pendingApprovalsQuery);
      const approval = pending.find((candidate) => candidate.approvalId === asked.approvalId);
      if (!approval) {
        const known = pending.map((candidate) => candidate.approvalId);
        return reply(response, 409, { error: `No pending approval '${asked.approvalId}'${known.length ? `; pending: ${known.join(', ')}` : '; nothing is pending'}` });
      }
      const decision = signDecision(options.approver, {
        workflowId: handle.workflowId,
        pending: approval,
        choice: asked.choice,
        ...(asked.reason ? { reason: asked.reason } : {}),
        via: `webhook:${asked.decidedBy ?? 'unnamed'}`,
      });
      const result = await handle.executeUpdate(decideApprovalUpdate, { args: [decision] });
      return reply(response, 200, { ok: true, sessionId, ...result });
    } catch (error) {
      if (isTemporalError(error, 'WorkflowNotFoundError')) return reply(response, 404, { error: `No running session '${sessionId}'` });
      if (isTemporalError(error, 'WorkflowUpdateFailedError')) return reply(response, 409, { error: error.cause?.message ?? error.message });
      return reply(response, 409, { error: (error as Error).message });
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${address.port}/approvals`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function readBody(request: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    request.on('end', () => resolve(size > MAX_BODY_BYTES ? undefined : Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function reply(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}
