// The approval policy: given what the assessment found about a tool call (the detector's verdict
// on its command, the paths it touches as they resolve, the process it types into) and the
// session's settings, does the call run, wait for a human, go to smart review, or stay blocked?
// Pure, so the workflow can apply it deterministically (the assessment is a recorded activity).
import type { ApprovalMode, ApprovalSurface, CommandAssessment, PathFinding, UnattendedPolicy } from './approval-types';
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
  /** A value no other judged call shares (the workflow's uuid4): names the key of a rule whose approval covers this call only. */
  callNonce?: string;
}

export type PolicyDecision =
  | { action: 'run'; note?: string }
  | { action: 'ask'; description: string; keys: string[]; allowAlways: boolean }
  | { action: 'smart-review'; description: string; keys: string[]; allowAlways: boolean }
  | { action: 'block'; message: string; kind: 'hardline' | 'deny-rule' | 'unattended' };

/** The detector's rule for a command it could not analyse whole (too long, too deeply nested). */
const UNREAD_RULE = 'U04';

/** What one part of a call needs a human for: shown as `description`, approved by `key`. */
interface Concern {
  description: string;
  key: string;
}

/** The session/always key of a path: the access and the exact resolved path, nothing wider. */
export function pathApprovalKey(finding: Pick<PathFinding, 'access' | 'resolved'>): string {
  return `${finding.access === 'write' ? 'PATHW' : 'PATHR'}:${finding.resolved}`;
}

export function decideCommand(input: PolicyInput): PolicyDecision {
  const { assessment } = input;
  const verdict = assessment.verdict;
  const paths = assessment.paths ?? [];

  const hardline = verdict?.rules.find((rule) => rule.tier === 'hardline');
  if (hardline) return { action: 'block', kind: 'hardline', message: hardlineBlocked(hardline.description) };
  const hardlinePath = paths.find((finding) => finding.hardline && !finding.contained);
  if (hardlinePath) return { action: 'block', kind: 'hardline', message: hardlineBlocked(`${hardlinePath.risk ?? 'write to a device'}: ${hardlinePath.resolved}`) };
  if (assessment.deniedBy) return { action: 'block', kind: 'deny-rule', message: userDenyRuleBlocked(assessment.deniedBy) };
  // The floor above holds in every mode, but only for a command the detector read whole and for
  // what it knows runs: one it could not read (padded past its length limit, behind more wrappers
  // than it peels) could hide `rm -rf /`, and a hardline finding in text an unknown program is only
  // guessed to run may be one, so each is asked about even where nothing else would be.
  const floorConcerns = floorConcernsOf(verdict?.rules ?? []);
  if (input.mode === 'off') return floorConcerns.length ? decideConcerns(input, floorConcerns) : { action: 'run' };

  const concerns: Concern[] = [];
  if (assessment.isolated) concerns.push(...floorConcerns);
  if (assessment.problem) concerns.push({ description: assessment.problem, key: assessment.problemKey ?? `PROBLEM:${assessment.display ?? assessment.problem}` });
  if (assessment.required) concerns.push(assessment.required);
  // A sandbox without host mounts contains what its commands do; the worker's own files never are.
  const command = assessment.command;
  let commandAllowlisted = false;
  if (verdict && command !== undefined && !assessment.isolated) {
    commandAllowlisted = !verdict.compound && input.allowlist.has(command.trim());
    if (!commandAllowlisted) concerns.push(...rulesNeedingApproval(verdict.rules, verdict.tier, command).map((rule) => ruleConcern(rule, input.callNonce)));
  }
  if (assessment.processInput?.partial && !assessment.isolated) {
    concerns.push({
      description: `typing a partial line into ${assessment.processInput.program} (it runs once a later input completes it)`,
      key: `PROCW:${assessment.processInput.processId}:${command ?? ''}`,
    });
  }
  for (const finding of paths) {
    if (finding.risk && !finding.contained) concerns.push({ description: `${finding.risk}: ${finding.shown ?? finding.resolved}`, key: pathApprovalKey(finding) });
  }
  return decideConcerns(input, concerns);
}

/** What stands in for the hardline floor where the detector could not apply it for sure. */
function floorConcernsOf(rules: readonly MatchedRule[]): Concern[] {
  return rules.flatMap((rule) => {
    if (rule.id === UNREAD_RULE) return [{ description: `${rule.description} (so not checked against what is always blocked)`, key: rule.key }];
    return rule.guessedHardline ? [{ description: rule.description, key: rule.key }] : [];
  });
}

/**
 * A rule's concern; one whose command reads its targets at run time (`MatchedRule.once`) gets a key
 * no other call shares, so neither a session answer nor the allowlist carries it to a later call.
 */
function ruleConcern(rule: MatchedRule, callNonce: string | undefined): Concern & { once?: true } {
  return rule.once ? { description: rule.description, key: `${rule.key} #once:${callNonce ?? rule.command}`, once: true } : rule;
}

/** Runs what every concern of is approved already; otherwise asks (or applies the unattended policy). */
function decideConcerns(input: PolicyInput, concerns: (Concern & { once?: true })[]): PolicyDecision {
  const { assessment } = input;
  const { verdict, command } = assessment;
  const unapproved = concerns.filter((concern) => !input.sessionApprovals.has(concern.key) && !input.allowlist.has(concern.key));
  if (!unapproved.length) return { action: 'run' };

  const description = [...new Set(unapproved.map((concern) => concern.description))].join('; ');
  const keys = [...new Set(unapproved.map((concern) => concern.key))];
  if (input.surface === 'unattended') {
    return input.unattendedPolicy === 'approve'
      ? { action: 'run', note: approvedNote(description, 'policy') }
      : { action: 'block', kind: 'unattended', message: unattendedBlocked(description) };
  }
  // "Always" only for one simple command, or one exact path: never a rule wider than what was seen.
  const pathKeys = keys.filter((key) => key.startsWith('PATH'));
  const allowAlways = command !== undefined
    ? !verdict?.compound && !command.includes('\n') && pathKeys.length === 0 && !assessment.processInput && !assessment.problem && !unapproved.some((concern) => concern.once)
    : pathKeys.length === 1 && keys.length === 1;
  return { action: input.mode === 'smart' ? 'smart-review' : 'ask', description, keys, allowAlways: Boolean(allowAlways) };
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
