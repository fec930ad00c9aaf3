// The worker's side of start-signature.ts: a root session runs only when a key this worker's own
// config trusts signed its start (never the keys the input itself names), and only once. A child
// or continued run runs only when the run Temporal names as its origin is a session (session-lineage.ts).
import type { Client } from '@temporalio/client';
import { sessionApprovers } from '../approval-signals/approver-key';
import { verifyStartSignature, type StartVerification } from '../approval-signals/start-signature';
import type { LoadedConfig } from '../config/load';
import type { Logger } from '../logging';
import type { SessionStore } from '../store/session-store';
import type { SessionInput } from '../workflows/session-types';
import { describeRunWith, verifyLineage, type SessionLineage } from './session-lineage';

export interface VerifyStartInput {
  workflowId: string;
  input: SessionInput;
  /** When the run started, as the server recorded it (ISO). */
  runStartedAt: string;
  /** Set on a child or continued run: the run that vouches for it instead of a signature. */
  lineage?: SessionLineage;
  /** The run's own task queue, where a vouching session must run too. */
  taskQueue?: string;
}

export function createStartVerificationActivity(deps: { config: LoadedConfig; store: SessionStore; logger: Logger; client?: Client }) {
  return {
    async verifySessionStart(request: VerifyStartInput): Promise<StartVerification> {
      const { approvals } = deps.config;
      if (approvals.accept_unsigned_starts) return { ok: true, startedBy: 'anyone (approvals.accept_unsigned_starts)' };
      if (request.lineage) {
        const lineageVerdict = deps.client
          ? await verifyLineage(request.lineage, request.taskQueue ?? '', describeRunWith(deps.client))
          : ({ ok: false, reason: 'this worker has no client of its server to check where it came from' } as const);
        if (!lineageVerdict.ok) deps.logger.warn(`Refused to run session ${request.input.sessionId} (${request.workflowId}): ${lineageVerdict.reason}`);
        return lineageVerdict;
      }
      let verdict = verifyStartSignature(request, sessionApprovers(deps.config.home, approvals.approvers));
      // A signed input read from a history and started again under its own id: good once only.
      if (verdict.ok && (await deps.store.getSession(request.input.sessionId))) {
        verdict = { ok: false, reason: `session ${request.input.sessionId} has run already: a signed start is good for one new session (start another id)` };
      }
      if (!verdict.ok) deps.logger.warn(`Refused to run session ${request.input.sessionId} (${request.workflowId}): ${verdict.reason}`);
      return verdict;
    },
  };
}
