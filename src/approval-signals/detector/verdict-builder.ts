// Turns rule hits into the verdict: one rule per approval key, most severe first, the tier of the
// worst rule (`safe` when none), and the commands the text runs as the user should see them.
import type { CommandVerdict, MatchedRule, ParsedCommand, RiskTier } from '../verdict';
import type { Analysis, ExecutedCommand } from './analysis-types';
import { toMatchedRule, type RuleHit } from './rule-catalog';

const SEVERITY: Record<MatchedRule['tier'], number> = { hardline: 4, dangerous: 3, unknown: 2, low_risk: 1 };

export function severityOf(tier: MatchedRule['tier']): number {
  return SEVERITY[tier];
}

/** The verdict with these rules, most severe first, and its tier raised to the worst of them (never lowered). */
export function withRankedRules(verdict: CommandVerdict, rules: readonly MatchedRule[]): CommandVerdict {
  const ranked = [...rules].sort((left, right) => severityOf(right.tier) - severityOf(left.tier));
  const worst = ranked[0]?.tier;
  const tier = worst !== undefined && (verdict.tier === 'safe' || severityOf(worst) > severityOf(verdict.tier)) ? worst : verdict.tier;
  return { ...verdict, tier, rules: ranked };
}

export function buildVerdict(text: string, analysis: Analysis, hits: readonly RuleHit[], parseError: string | undefined): CommandVerdict {
  const byKey = new Map<string, MatchedRule>();
  for (const hit of hits) {
    const rule = toMatchedRule(hit);
    const existing = byKey.get(rule.key);
    if (!existing || (rule.description.length > existing.description.length && rule.id === existing.id)) byKey.set(rule.key, rule);
  }
  const rules = [...byKey.values()].sort((left, right) => SEVERITY[right.tier] - SEVERITY[left.tier]);
  const tier: RiskTier = rules[0]?.tier ?? 'safe';
  const commands = analysis.commands.filter(isReported).map(toParsedCommand);
  const lines = text.split('\n').filter((line) => line.trim() !== '').length;
  const verdict: CommandVerdict = { tier, rules, commands, compound: commands.length > 1 || lines > 1 };
  if (parseError !== undefined) verdict.parseError = parseError;
  return verdict;
}

/** Re-parse hosts whose text was walked are shown through their inner commands instead. */
function isReported(command: ExecutedCommand): boolean {
  return !command.hidden && !command.host;
}

function toParsedCommand(command: ExecutedCommand): ParsedCommand {
  return {
    name: command.name,
    args: command.argv.slice(1).map((word) => word.value),
    wrappers: command.wrappers,
    text: command.text,
  };
}

/** The verdict when classification itself failed: never safe. */
export function failureVerdict(text: string, reason: string): CommandVerdict {
  const canonical = text.trim().replace(/\s+/g, ' ');
  const rule = toMatchedRule({ id: 'U04', canonical, command: text, detail: reason });
  return { tier: 'unknown', rules: [rule], commands: [], compound: text.split('\n').filter((line) => line.trim()).length > 1, parseError: reason };
}
