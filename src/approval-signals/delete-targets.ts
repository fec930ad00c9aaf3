// A delete's approval key names the folder as written (`rm -rf data/`); once `data` is a link to
// the work, the same words empty the work. The gate looks where each target really leads, and a
// target that leads elsewhere is named in the key (so an approval of the folder never covers the
// link) and in what the person reads.
import type { CommandVerdict, MatchedRule } from './verdict';

export type RealPathOf = (path: string) => Promise<string>;

export interface FollowedTargets {
  /** Each delete whose targets lead elsewhere keyed and described by where they lead. */
  verdict: CommandVerdict;
  /** Targets that are real folders or files now: a link found there when the command starts voids its approval (see gate.ts). */
  real: string[];
}

export async function followDeleteTargets(verdict: CommandVerdict, realPathOf: RealPathOf, workspaceRoot: string, shown: (path: string) => string): Promise<FollowedTargets> {
  if (!verdict.rules.some((rule) => rule.targets?.length)) return { verdict, real: [] };
  const expected = expectedRealPaths(workspaceRoot, await realPathOf(workspaceRoot).catch(() => workspaceRoot));
  const rules: MatchedRule[] = [];
  const stillReal: string[] = [];
  for (const rule of verdict.rules) {
    const redirected: [string, string][] = [];
    for (const target of rule.targets ?? []) {
      // A path that does not exist yet is not a link: what the command makes of it is its own business.
      const real = await realPathOf(target).catch(() => undefined);
      if (real !== undefined && real !== expected(target)) redirected.push([target, real]);
      else if (real === target) stillReal.push(target);
    }
    if (!redirected.length) {
      rules.push(rule);
      continue;
    }
    const leads = redirected.map(([target, real]) => `${shown(target)} leads to ${shown(real)}`).join(', ');
    rules.push({ ...rule, key: `${rule.key} → ${redirected.map(([, real]) => real).join(' ')}`, description: `${rule.description} (through a link: ${leads})` });
  }
  return { verdict: { ...verdict, rules }, real: [...new Set(stillReal)] };
}

/**
 * Where a path leads when no link below the workspace's folder is on the way: that folder may itself
 * be reached through a link (`/tmp` on some systems), which is no trick of the model's.
 */
export function expectedRealPaths(workspaceRoot: string, realRoot: string): (path: string) => string {
  return (target) => (target === workspaceRoot || target.startsWith(`${workspaceRoot}/`) ? `${realRoot}${target.slice(workspaceRoot.length)}` : target);
}
