// A low-risk grant the detector read from path text (`rm -rf node_modules` deletes a build folder)
// holds only if the path is what its name says on the session's backend: inside the workspace and
// reached through no symbolic link (`ln -s . node_modules` makes the name lie). Checked when the
// call is assessed and again just before the command starts; a grant that fails becomes D02.
import { RULE_CATALOG } from './detector/rule-catalog';
import { withRankedRules } from './detector/verdict-builder';
import type { CommandVerdict, MatchedRule } from './verdict';

/** More paths than this are not checked one by one: a human decides. */
const MAX_LINK_FREE_PATHS = 20;

export type RealPathOf = (path: string) => Promise<string>;

export interface ConfirmedVerdict {
  verdict: CommandVerdict;
  /** Paths the grants that held rely on: the command must find them the same when it starts. */
  linkFreePaths: string[];
}

/** The verdict with each path-text grant that does not hold turned into the dangerous rule D02. */
export async function confirmLinkFreePaths(
  verdict: CommandVerdict,
  realPathOf: RealPathOf,
  /** Why no path can be trusted at all (e.g. the shell the text is typed into may have changed folder). */
  untrusted?: string,
): Promise<ConfirmedVerdict> {
  const relying = verdict.rules.filter((rule) => rule.linkFreePaths?.length);
  if (!relying.length) return { verdict, linkFreePaths: [] };
  const wanted = [...new Set(relying.flatMap((rule) => rule.linkFreePaths ?? []))];
  // Another command of the same text may make the link before the delete runs: nothing to check
  // then, unless the delete comes first (`rm -rf node_modules && npm ci`) with nothing nested in it.
  const everyPath =
    untrusted ??
    (verdict.compound && !runsFirst(verdict, relying, wanted) ? 'another command in the same text could change what the path is' : wanted.length > MAX_LINK_FREE_PATHS ? 'too many paths to check' : undefined);
  const linked = everyPath === undefined ? await linkedPaths(wanted, realPathOf) : new Map<string, string>();
  const whyNot = (rule: MatchedRule): string | undefined => {
    if (everyPath !== undefined) return everyPath;
    const path = rule.linkFreePaths?.find((candidate) => linked.has(candidate));
    return path === undefined ? undefined : `${path} ${linked.get(path)}`;
  };
  const rules: MatchedRule[] = [];
  const linkFreePaths: string[] = [];
  for (const rule of verdict.rules) {
    const reason = rule.linkFreePaths?.length ? whyNot(rule) : undefined;
    if (reason === undefined) {
      rules.push(rule);
      linkFreePaths.push(...(rule.linkFreePaths ?? []));
    } else {
      rules.push(asRecursiveDelete(rule, reason));
    }
  }
  return { verdict: withRankedRules(verdict, rules), linkFreePaths: [...new Set(linkFreePaths)] };
}

/**
 * Whether every rule comes from the text's first command, no other command runs inside it
 * (`$(...)`), and none of the others names a folder it deletes (a later `rm -rf dist/` shares its key).
 */
function runsFirst(verdict: CommandVerdict, rules: readonly MatchedRule[], paths: readonly string[]): boolean {
  const [first, ...others] = verdict.commands;
  if (!first) return false;
  const names = paths.map((path) => path.slice(path.lastIndexOf('/') + 1));
  return (
    rules.every((rule) => rule.command === first.text) &&
    others.every((other) => !first.text.includes(other.text) && !names.some((name) => other.text.includes(name)))
  );
}

/** Why the first of `paths` that does not lead where it reads fails, if one does (checked just before a command starts). */
export async function linkedPathNow(paths: readonly string[], realPathOf: RealPathOf): Promise<string | undefined> {
  const linked = await linkedPaths(paths, realPathOf);
  const path = paths.find((candidate) => linked.has(candidate));
  return path === undefined ? undefined : `${path} ${linked.get(path)}`;
}

/** Each path that leads elsewhere (a link on the way) or cannot be resolved, with why. */
async function linkedPaths(paths: readonly string[], realPathOf: RealPathOf): Promise<Map<string, string>> {
  const linked = new Map<string, string>();
  await Promise.all(
    paths.map(async (path) => {
      try {
        const real = await realPathOf(path);
        if (real !== path) linked.set(path, `leads to ${real} (a symbolic link on the way)`);
      } catch (error) {
        linked.set(path, `could not be checked (${error instanceof Error ? error.message : String(error)})`);
      }
    }),
  );
  return linked;
}

function asRecursiveDelete(rule: MatchedRule, reason: string): MatchedRule {
  return {
    id: 'D02',
    tier: RULE_CATALOG.D02.tier,
    description: `${RULE_CATALOG.D02.description} (${reason})`,
    key: `D02:${rule.key.slice(rule.key.indexOf(':') + 1)}`,
    command: rule.command,
  };
}
