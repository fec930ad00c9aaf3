// The detector judges a path by its name. Outside a container the gate also looks where each path
// a command names really leads, on the session's backend: a write to `notes` that reaches
// `~/.bashrc`, or a read of `data.txt` that reaches `~/.ssh/id_rsa`, through a link already on disk
// (a repository's checked-out link, an earlier call's `ln -s`), is judged as the real path. A link
// the same text may make first (an unpacked archive, a checkout: detector/links-made-in-text.ts)
// cannot be looked up: that asks; one it moves or copies as a link is judged where its source leads.
import { expectedRealPaths } from './delete-targets';
import { analyseCommandText, normaliseContext } from './detector/classify-text';
import type { ExecutedCommand } from './detector/analysis-types';
import { linksMadeInText, madeLinkAt, movesLinksOnly, readerRunsTreeCode, type LinksMadeInText } from './detector/links-made-in-text';
import { hitsThroughLink, namedPaths, unplacedPaths, type NamedPath } from './detector/named-paths';
import { displayPath } from './detector/paths';
import { canonicalCommand } from './detector/rules/rule-helpers';
import type { RuleContext } from './detector/rules/rule-types';
import { toMatchedRule, type RuleHit } from './detector/rule-catalog';
import { withRankedRules } from './detector/verdict-builder';
import type { ClassifyContext, CommandVerdict, MatchedRule } from './verdict';

/** Past this many paths the rest are not looked at one by one: a human decides. */
export const MAX_FOLLOWED_PATHS = 1024;

/** Where each path leads (undefined: cannot be told, or does not exist), in one round trip where the backend can. */
export type RealPathsOf = (paths: readonly string[]) => Promise<(string | undefined)[]>;

export async function followNamedPaths(text: string, context: ClassifyContext, verdict: CommandVerdict, realPathsOf: RealPathsOf): Promise<CommandVerdict> {
  if (verdict.tier === 'unknown' || verdict.tier === 'hardline') return verdict;
  const ruleContext = normaliseContext(context);
  const analysis = analyseCommandText(text, context).analysis;
  const named = namedPaths(analysis, ruleContext, true);
  const made = linksMadeInText(analysis, ruleContext);
  if (!named.length && !made.makers.length) return verdict;
  const paths = [...new Set(named.map((path) => path.path))];
  const followedPaths = new Set(paths.slice(0, MAX_FOLLOWED_PATHS));
  const followed = named.filter((path) => followedPaths.has(path.path));
  // A link an earlier command of the text may make there (an unpacked archive, a checkout), or moves there.
  const madeAt = followed.map((path) => (mayMeetMadeLink(path, made) ? madeLinkAt(path.path, commandOf(path), made) : { sources: [] }));
  const lookedUp = [...new Set([...followedPaths, ...madeAt.flatMap((at) => at.sources)])];
  const [realRoot, ...reals] = await realPathsOf([ruleContext.workspaceRoot, ...lookedUp]);
  const expected = expectedRealPaths(ruleContext.workspaceRoot, realRoot ?? ruleContext.workspaceRoot);
  const realOf = new Map(lookedUp.map((path, index) => [path, reals[index] === undefined ? undefined : withoutFirmlink(reals[index])]));
  // A path that does not exist yet is not a link; one that does and leads elsewhere is judged where it leads.
  const leadsElsewhere = (path: string) => {
    const real = realOf.get(path);
    return real !== undefined && real !== expected(path) ? real : undefined;
  };
  const hits: RuleHit[] = [];
  followed.forEach((path, index) => {
    const real = leadsElsewhere(path.path);
    if (real !== undefined) hits.push(...hitsThroughLink(path, real, ruleContext));
    const at = madeAt[index]!;
    if (at.maker) hits.push(madeLinkHit(path, at.maker, ruleContext));
    for (const source of at.sources) {
      const through = leadsElsewhere(source);
      if (through !== undefined) hits.push(...hitsThroughLink(path, through, ruleContext, source));
    }
  });
  // A path only known at run time may be any of them: any maker in the text but its own command.
  for (const path of made.makers.length ? unplacedPaths(analysis, ruleContext) : []) {
    const maker = mayMeetMadeLink(path, made) ? made.makers.find((candidate) => candidate.command.text !== path.command) : undefined;
    if (maker) hits.push({ id: 'N44', canonical: `${path.accessor} ${path.shown} after ${canonicalCommand(maker.command, [maker.command.program ?? '?'])}`, command: path.command, detail: `${path.shown} is only known when it runs and may be a link made by \`${maker.command.text.slice(0, 80)}\`` });
  }
  if (paths.length > MAX_FOLLOWED_PATHS) hits.push({ id: 'N43', canonical: verdict.commands.map((command) => command.text).join('; ').slice(0, 200), command: text, detail: `${paths.length} paths; ${MAX_FOLLOWED_PATHS} are looked at` });
  return hits.length ? withRules(verdict, hits.map(toMatchedRule)) : verdict;
}

function commandOf(path: NamedPath): string {
  return path.access === 'write' ? path.write.command : path.command;
}

/**
 * Writes always; reads unless the reader only moves or unpacks what it reads (a link among them
 * stays a link) or is a build or test tool, which runs the tree's own code and reads what it likes.
 */
function mayMeetMadeLink(path: { access: 'write' } | { access: 'read'; command: string; program: string | null }, made: LinksMadeInText): boolean {
  return path.access === 'write' || (!movesLinksOnly(path.command, made) && !readerRunsTreeCode(path.program));
}

function madeLinkHit(path: NamedPath, maker: ExecutedCommand, context: RuleContext): RuleHit {
  const shown = displayPath(path.path, context.home);
  const access = path.access === 'write' ? `${path.write.program} ${shown}` : `${path.reader} ${shown}`;
  return { id: 'N44', canonical: `${access} after ${canonicalCommand(maker, [maker.program ?? '?'])}`, command: commandOf(path), detail: `${shown} may be a link made by \`${maker.text.slice(0, 80)}\`` };
}

/** macOS reaches `/tmp`, `/var` and `/etc` through `/private`: that link is the system's, not a trick. */
function withoutFirmlink(path: string): string {
  return path.replace(/^\/private(?=\/(?:tmp|var|etc)(?:\/|$))/, '');
}

function withRules(verdict: CommandVerdict, added: readonly MatchedRule[]): CommandVerdict {
  const keys = new Set(verdict.rules.map((rule) => rule.key));
  return withRankedRules(verdict, [...verdict.rules, ...added.filter((rule) => !keys.has(rule.key) && keys.add(rule.key))]);
}
