// The approval policy: given what the detector found and the session's settings, does a command
// run, wait for a human, go to smart review, or stay blocked? Pure, so the workflow can apply it
// deterministically (the detector's verdict arrives through a recorded local activity).
import type { ApprovalMode, ApprovalSurface, CommandAssessment, UnattendedPolicy } from './approval-types';
import { approvedNote, hardlineBlocked, unattendedBlocked, userDenyRuleBlocked } from './approval-messages';
import type { MatchedRule } from './verdict';

export interface PolicyInput {
  assessment: CommandAssessment;
  mode: ApprovalMode;
  surface: ApprovalSurface;
  unattendedPolicy: UnattendedPolicy;
  /** Keys approved for this session (`session` and `always` answers). */
  sessionApprovals: ReadonlySet<string>;
  /** Keys or exact commands from the permanent `command_allowlist`. */
  allowlist: ReadonlySet<string>;
}

export type PolicyDecision =
  | { action: 'run'; note?: string }
  | { action: 'ask'; description: string; keys: string[]; allowAlways: boolean }
  | { action: 'smart-review'; description: string; keys: string[]; allowAlways: boolean }
  | { action: 'block'; message: string; kind: 'hardline' | 'deny-rule' | 'unattended' };

export function decideCommand(input: PolicyInput): PolicyDecision {
  const { assessment } = input;
  const verdict = assessment.verdict;
  if (!verdict || assessment.command === undefined) return { action: 'run' };

  const hardline = verdict.rules.find((rule) => rule.tier === 'hardline');
  if (hardline) return { action: 'block', kind: 'hardline', message: hardlineBlocked(hardline.description) };
  if (assessment.deniedBy) return { action: 'block', kind: 'deny-rule', message: userDenyRuleBlocked(assessment.deniedBy) };
  if (assessment.isolated || input.mode === 'off') return { action: 'run' };

  const unapproved = rulesNeedingApproval(verdict.rules, verdict.tier, assessment.command).filter(
    (rule) => !input.sessionApprovals.has(rule.key) && !input.allowlist.has(rule.key),
  );
  if (!unapproved.length || (!verdict.compound && input.allowlist.has(assessment.command.trim()))) return { action: 'run' };

  const description = [...new Set(unapproved.map((rule) => rule.description))].join('; ');
  const keys = [...new Set(unapproved.map((rule) => rule.key))];
  if (input.surface === 'unattended') {
    return input.unattendedPolicy === 'approve'
      ? { action: 'run', note: approvedNote(description, 'policy') }
      : { action: 'block', kind: 'unattended', message: unattendedBlocked(description) };
  }
  const allowAlways = !verdict.compound && !assessment.command.includes('\n');
  return { action: input.mode === 'smart' ? 'smart-review' : 'ask', description, keys, allowAlways };
}

/** Dangerous rules, plus a stand-in rule when the command could not be understood at all. */
function rulesNeedingApproval(rules: MatchedRule[], tier: string, command: string): MatchedRule[] {
  const needing = rules.filter((rule) => rule.tier === 'dangerous' || rule.tier === 'unknown');
  if (tier === 'unknown' && !needing.some((rule) => rule.tier === 'unknown')) {
    needing.push({
      id: 'U00',
      description: 'command could not be fully analysed',
      tier: 'unknown',
      key: `U00:${command.trim().replace(/\s+/g, ' ')}`,
      command,
    });
  }
  return needing;
}
