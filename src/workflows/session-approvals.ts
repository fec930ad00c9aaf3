// Wires the approval gate into a session: its activities, its status and search attributes,
// and the signal, update and query through which humans see and decide approvals.
import { log, setHandler, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { DEFAULT_APPROVAL_SETTINGS } from '../approval-signals/approval-types';
import {
  approvalDecisionSignal,
  decideApprovalUpdate,
  parseApprovalDecision,
  pendingApprovalsQuery,
} from '../approval-signals/definitions';
import { HermesPendingApprovals } from '../temporal/search-attributes';
import { ApprovalGate } from './approval-gate';
import type { SessionActivities } from './session-activities';
import type { SessionState } from './session-state';
import type { SessionInput } from './session-types';

export function installApprovals(
  input: SessionInput,
  state: SessionState,
  activities: SessionActivities,
  onAwaiting: (awaiting: boolean) => void,
): ApprovalGate {
  const settings = { ...DEFAULT_APPROVAL_SETTINGS, ...input.approvals };
  const carry = input.resume?.approvals ?? { sessionApprovals: [], allowlist: [], approvalCounter: 0 };
  const gate = new ApprovalGate(settings, carry, {
    assess: (call, assistantSeq) =>
      activities.assessCommand({ sessionId: input.sessionId, assistantSeq, toolCallId: call.id, environment: state.environment }),
    // A failed review escalates to a human; a failed write keeps the approval for this session.
    review: (command, description) =>
      activities.reviewCommand({ command, description, model: input.model, baseUrl: input.baseUrl }).catch(() => 'escalate' as const),
    persist: (keys) =>
      activities.addToAllowlist({ keys }).catch((error: unknown) => log.warn('Could not save the allowlist', { error: String(error) })),
    notify: (approval) => activities.notifyApproval({ sessionId: input.sessionId, workflowId: workflowInfo().workflowId, approval }),
    onPendingChange: (count) => {
      upsertSearchAttributes([{ key: HermesPendingApprovals, value: count }]);
      onAwaiting(count > 0);
    },
    now: () => Date.now(),
  });

  setHandler(pendingApprovalsQuery, () => gate.pending());
  setHandler(approvalDecisionSignal, (decision) => {
    try {
      gate.decideFromSignal(parseApprovalDecision(decision));
    } catch {
      // A malformed signal is dropped: signals cannot answer, use the update for feedback.
    }
  });
  setHandler(decideApprovalUpdate, (decision) => gate.decide(parseApprovalDecision(decision)), {
    validator: (decision) => gate.validate(parseApprovalDecision(decision)),
    description: 'Approve or deny a pending dangerous command: {approvalId, choice: once|session|always|deny, reason?, decidedBy?}',
  });
  return gate;
}
