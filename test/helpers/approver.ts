// Answers approvals in tests the way `hermes-temporal approve` does: read the pending approval,
// sign the decision with the approver key under the test config's home, send the update.
import type { ApprovalChoice, ApprovalDecision } from '../../src/approval-signals/approval-types';
import { loadApproverKey, signDecision } from '../../src/approval-signals/approver-key';
import { decideApprovalUpdate, pendingApprovalsQuery, type DecideApprovalResult } from '../../src/approval-signals/definitions';
import type { LoadedConfig } from '../../src/config/load';
import type { SessionHandle } from '../../src/temporal/sessions';

export async function signedDecision(
  handle: SessionHandle,
  config: Pick<LoadedConfig, 'home'>,
  decision: { approvalId: string; choice: ApprovalChoice; reason?: string },
): Promise<ApprovalDecision> {
  const pending = (await handle.query(pendingApprovalsQuery)).find((approval) => approval.approvalId === decision.approvalId);
  if (!pending) throw new Error(`No pending approval ${decision.approvalId} to sign a decision for`);
  const key = loadApproverKey(config.home, { create: true });
  return signDecision(key, { workflowId: handle.workflowId, pending, choice: decision.choice, ...(decision.reason ? { reason: decision.reason } : {}), via: 'test' });
}

export async function decideSigned(
  handle: SessionHandle,
  config: Pick<LoadedConfig, 'home'>,
  decision: { approvalId: string; choice: ApprovalChoice; reason?: string },
): Promise<DecideApprovalResult> {
  return handle.executeUpdate(decideApprovalUpdate, { args: [await signedDecision(handle, config, decision)] });
}
