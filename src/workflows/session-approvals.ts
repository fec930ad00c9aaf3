// Wires the approval gate into a session: its activities, its status and search attributes,
// and the signal, update and query through which humans see and decide approvals.
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import { log, setHandler, workflowInfo } from '@temporalio/workflow';
import { DEFAULT_APPROVAL_SETTINGS, type CommandAssessment, type PendingApproval, type SessionApprovalSettings } from '../approval-signals/approval-types';
import { VerifiedDecisions } from '../approval-signals/decision-signature';
import { firstLineOf } from '../approval-signals/visible-text';
import { markdownCode } from '../approval-signals/ui-markdown';
import {
  approvalAuditQuery,
  approvalDecisionSignal,
  decideApprovalUpdate,
  parseApprovalDecision,
  pendingApprovalsQuery,
} from '../approval-signals/definitions';
import { HermesPendingApprovals } from '../temporal/search-attributes';
import { ApprovalGate } from './approval-gate';
import type { SessionActivities } from './session-activities';
import type { SessionState } from './session-state';
import type { SessionInput, ToolCallPlan } from './session-types';

/**
 * Calls judged by one activity: a reply of two thousand gated calls is forty activities, side by
 * side, whose completions the server takes as they come (one activity a call overflowed its buffer).
 */
const ASSESSED_TOGETHER = 50;

export function installApprovals(
  input: SessionInput,
  state: SessionState,
  activities: SessionActivities,
  onAwaiting: (awaiting: boolean, alongside: SearchAttributeUpdatePair[]) => void,
  /** What histories recorded before them replay without. */
  features: { assessInBatches?: boolean; sharedDeadlines?: boolean } = {},
): ApprovalGate {
  const settings = { ...DEFAULT_APPROVAL_SETTINGS, ...input.approvals };
  const verifiedDecisions = new VerifiedDecisions();
  const carry = input.resume?.approvals ?? { sessionApprovals: [], allowlist: [], approvalCounter: 0 };
  const target = (call: ToolCallPlan) => ({ toolCallId: call.id, ...(call.mcp ? { mcp: call.mcp } : {}) });
  /** One activity judges what of the batch fits in its result; it is asked again for the rest. */
  const assessBatch = async (calls: ToolCallPlan[], assistantSeq: number): Promise<CommandAssessment[]> => {
    const assessments: CommandAssessment[] = [];
    while (assessments.length < calls.length) {
      const rest = calls.slice(assessments.length);
      const judged = await activities.assessCommands({ sessionId: input.sessionId, assistantSeq, environment: state.environment, calls: rest.map(target) });
      if (!judged.length) throw new Error('assessCommands judged none of the calls it was given');
      assessments.push(...judged.slice(0, rest.length));
    }
    return assessments;
  };
  const gate = new ApprovalGate(settings, carry, {
    assess: (call, assistantSeq) => activities.assessCommand({ sessionId: input.sessionId, assistantSeq, environment: state.environment, ...target(call) }),
    ...(features.assessInBatches
      ? { assessAll: async (calls, assistantSeq) => (await Promise.all(batchesOf(calls, ASSESSED_TOGETHER).map((batch) => assessBatch(batch, assistantSeq)))).flat() }
      : {}),
    // A failed review escalates to a human; a failed write keeps the approval for this session.
    review: (command, description) =>
      activities.reviewCommand({ command, description, model: input.model, baseUrl: input.baseUrl }).catch(() => 'escalate' as const),
    persist: (keys) =>
      activities.addToAllowlist({ keys }).catch((error: unknown) => log.warn('Could not save the allowlist', { error: String(error) })),
    notify: (approval) => activities.notifyApproval({ sessionId: input.sessionId, workflowId: workflowInfo().workflowId, approval }),
    // The count goes with the status in one upsert where onAwaiting's caller does that (see agent-session.ts).
    onPendingChange: (count) => onAwaiting(count > 0, [{ key: HermesPendingApprovals, value: count }]),
    // Only a signature by one of the session's approver keys (or, opted in, no signature) decides.
    authenticate: (decision, pending) => {
      const verified = verifiedDecisions.verify(decision, {
        workflowId: workflowInfo().workflowId,
        pending,
        approvers: settings.approvers,
        acceptUnsigned: settings.acceptUnsigned,
      });
      if (!verified.ok) throw new Error(verified.message);
      return verified.decidedBy;
    },
    now: () => Date.now(),
  }, { sharedDeadlines: features.sharedDeadlines ?? false });

  setHandler(pendingApprovalsQuery, () => gate.pending());
  setHandler(approvalAuditQuery, () => gate.auditTrail());
  setHandler(approvalDecisionSignal, (decision) => {
    let parsed;
    try {
      parsed = parseApprovalDecision(decision);
    } catch (error) {
      // Signals cannot answer: the refusal is logged and, where the approval is known, shown on it.
      const approvalId = (decision as { approvalId?: unknown } | null)?.approvalId;
      gate.refuse(typeof approvalId === 'string' ? approvalId.slice(0, 100) : '(none)', (error as Error).message);
      return;
    }
    gate.decideFromSignal(parsed);
  });
  setHandler(decideApprovalUpdate, (decision) => gate.decide(parseApprovalDecision(decision)), {
    validator: (decision) => gate.validate(parseApprovalDecision(decision)),
    description: settings.acceptUnsigned
      ? 'Approve or deny a pending dangerous command: {approvalId, choice: once|session|always|deny, reason?, decidedBy?} (unsigned accepted)'
      : 'Approve or deny a pending dangerous command with a decision signed by an approver key (use `hermes-temporal approve`)',
  });
  return gate;
}

/** The UI's current-details line while approvals wait: what is asked, how to answer, what was refused. */
export function awaitingApprovalDetails(pending: readonly PendingApproval[], settings: Pick<SessionApprovalSettings, 'acceptUnsigned'>): string {
  const waiting = pending.map((approval) => {
    // What the model wrote (the command, a path in the description) and a decider's reason: quoted in the UI's Markdown.
    const refused = approval.refusedDecision ? ` — ${markdownCode(approval.refusedDecision.slice(0, 300))}` : '';
    return `${approval.approvalId} (${markdownCode(approval.description)}): ${markdownCode(firstLineOf(approval.command))}${refused}`;
  });
  const howTo = settings.acceptUnsigned
    ? 'Answer with the `approvalDecision` signal or `hermes-temporal approve`.'
    : 'Answer with `hermes-temporal approve|deny <session> <approval id>` (decisions must be signed by an approver key).';
  return `**Awaiting approval** — ${waiting.join('; ')}. ${howTo}`;
}

function batchesOf<T>(items: readonly T[], size: number): T[][] {
  const batches: T[][] = [];
  for (let start = 0; start < items.length; start += size) batches.push(items.slice(start, start + size));
  return batches;
}
