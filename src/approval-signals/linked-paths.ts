// The detector judges a path by its name. Outside a container the gate also looks where each path
// a command names really leads, on the session's backend: a write to `notes` that reaches
// `~/.bashrc`, or a read of `data.txt` that reaches `~/.ssh/id_rsa`, through a link already on disk
// (a repository's checked-out link, an earlier call's `ln -s`), is judged as the real path.
import { expectedRealPaths } from './delete-targets';
import { analyseCommandText, normaliseContext } from './detector/classify-text';
import { hitsThroughLink, namedPaths } from './detector/named-paths';
import { toMatchedRule, type RuleHit } from './detector/rule-catalog';
import { severityOf } from './detector/verdict-builder';
import type { ClassifyContext, CommandVerdict, MatchedRule } from './verdict';

/** Past this many paths the rest are not looked at one by one: a human decides. */
export const MAX_FOLLOWED_PATHS = 1024;

/** Where each path leads (undefined: cannot be told, or does not exist), in one round trip where the backend can. */
export type RealPathsOf = (paths: readonly string[]) => Promise<(string | undefined)[]>;

export async function followNamedPaths(text: string, context: ClassifyContext, verdict: CommandVerdict, realPathsOf: RealPathsOf): Promise<CommandVerdict> {
  if (verdict.tier === 'unknown' || verdict.tier === 'hardline') return verdict;
  const ruleContext = normaliseContext(context);
  const named = namedPaths(analyseCommandText(text, context).analysis, ruleContext);
  if (!named.length) return verdict;
  const followed = named.slice(0, MAX_FOLLOWED_PATHS);
  const [realRoot, ...reals] = await realPathsOf([ruleContext.workspaceRoot, ...followed.map((path) => path.path)]);
  const expected = expectedRealPaths(ruleContext.workspaceRoot, realRoot ?? ruleContext.workspaceRoot);
  const hits: RuleHit[] = [];
  followed.forEach((path, index) => {
    // A path that does not exist yet is not a link.
    const real = reals[index] === undefined ? undefined : withoutFirmlink(reals[index]);
    if (real !== undefined && real !== expected(path.path)) hits.push(...hitsThroughLink(path, real, ruleContext));
  });
  if (named.length > MAX_FOLLOWED_PATHS) hits.push({ id: 'N43', canonical: verdict.commands.map((command) => command.text).join('; ').slice(0, 200), command: text, detail: `${named.length} paths; ${MAX_FOLLOWED_PATHS} are looked at` });
  return hits.length ? withRules(verdict, hits.map(toMatchedRule)) : verdict;
}

/** macOS reaches `/tmp`, `/var` and `/etc` through `/private`: that link is the system's, not a trick. */
function withoutFirmlink(path: string): string {
  return path.replace(/^\/private(?=\/(?:tmp|var|etc)(?:\/|$))/, '');
}

function withRules(verdict: CommandVerdict, added: readonly MatchedRule[]): CommandVerdict {
  const keys = new Set(verdict.rules.map((rule) => rule.key));
  const rules = [...verdict.rules, ...added.filter((rule) => !keys.has(rule.key) && keys.add(rule.key))].sort((left, right) => severityOf(right.tier) - severityOf(left.tier));
  const worst = rules[0]!.tier;
  const tier = verdict.tier === 'safe' || severityOf(worst) > severityOf(verdict.tier) ? worst : verdict.tier;
  return { ...verdict, tier, rules };
}
