// What a tool is handed when its call may run, and the shortcut that lets the tool's own activity
// decide that: a call the policy runs with no approval from anyone (no session approvals, no
// allowlist) runs at once, where it was assessed; any other goes back to the workflow's gate.
// Approvals only ever remove concerns, so whatever runs here would run in the gate too.
import type { ApprovalGateResult, CommandAssessment, SessionApprovalSettings } from './approval-types';
import { decideCommand } from './policy';

/** The settings the shortcut needs: never the session's approvals, which could only widen it. */
export type GatePolicy = Pick<SessionApprovalSettings, 'mode' | 'surface' | 'unattendedPolicy'>;

const NOTHING_APPROVED: ReadonlySet<string> = new Set();

/** The gate's result for an approved call: the note, plus what the approval was given for. */
export function clearedCall(assessment: CommandAssessment, note?: string): ApprovalGateResult {
  // The tool refuses to run if the files or paths it was judged by changed in between.
  const checkedPaths = assessment.paths?.map((finding) => finding.resolved);
  return {
    approved: true,
    ...(note ? { note } : {}),
    ...(assessment.boundFiles?.length ? { boundFiles: assessment.boundFiles } : {}),
    ...(assessment.linkFreePaths?.length ? { linkFreePaths: assessment.linkFreePaths } : {}),
    ...(checkedPaths?.length ? { checkedPaths } : {}),
    ...(assessment.hooksChecked ? { hooksChecked: true as const } : {}),
    ...(needsAPersonByDefault(assessment) ? { sensitive: true as const } : {}),
  };
}

/**
 * Whether the default policy (manual, nothing approved yet) would ask someone before this call:
 * what it returns was given to this session alone, whatever answered here (a person, a session
 * approval, the allowlist, approvals off).
 */
export function needsAPersonByDefault(assessment: CommandAssessment): boolean {
  return decideCommand({ assessment, mode: 'manual', surface: 'async', unattendedPolicy: 'deny', sessionApprovals: NOTHING_APPROVED, allowlist: NOTHING_APPROVED }).action !== 'run';
}

/** The call's clearance when the policy runs it without asking anyone; undefined sends it to the gate. */
export function clearedWithoutAsking(assessment: CommandAssessment, policy: GatePolicy): ApprovalGateResult | undefined {
  if (assessment.hookBlock) return undefined;
  const decision = decideCommand({ assessment, ...policy, sessionApprovals: NOTHING_APPROVED, allowlist: NOTHING_APPROVED });
  return decision.action === 'run' ? clearedCall(assessment, decision.note) : undefined;
}
