// Deletes: `rm` (recursive or not, wherever its targets point; any of a repository's history),
// `find -delete`, `find -exec rm`, `xargs rm`. Targets are normalised first, so `rm -rf "$HOME/"`, `rm -fr //*` and `/bin/rm -R /`
// are the deletes they look like.
import type { ExecutedCommand, ShellWord } from '../analysis-types';
import { isGlobPattern } from '../glob';
import { findIsUnfiltered, findStartPaths } from '../find-exec';
import { hasOption, parseArgs } from '../flags';
import { classifyDeleteTarget, isBuildOrCachePath, isGitHistoryPath } from '../path-classes';
import { displayPath, isInside, type ResolvedPath } from '../paths';
import type { RuleHit, RuleId } from '../rule-catalog';
import { args, canonicalCommand, canonicalParsed, resolveTarget } from './rule-helpers';
import { commandsNamed, type Rule, type RuleContext } from './rule-types';

const HARDLINE_BY_CLASS = { root: 'H01', system: 'H02', home: 'H03' } as const;

export const deleteRules: Rule = (input) => {
  const hits: RuleHit[] = [];
  for (const command of commandsNamed(input, 'rm', 'unlink')) hits.push(...removeHits(command, input.context));
  for (const command of commandsNamed(input, 'find')) hits.push(...findHits(command, input.context));
  for (const command of commandsNamed(input, 'rsync')) hits.push(...rsyncHits(command, input.context));
  return hits;
};

/** `rsync --delete SRC DEST` empties DEST of everything not in SRC: a recursive delete of DEST. */
function rsyncHits(command: ExecutedCommand, context: RuleContext): RuleHit[] {
  const parsed = parseArgs(args(command), { shortValued: 'efB', longValued: ['exclude', 'include', 'filter', 'rsh', 'exclude-from', 'include-from'] });
  const destination = parsed.operands.at(-1);
  if (!destination || parsed.operands.length < 2 || !parsed.options.some((option) => option.name.startsWith('--delete'))) return [];
  if (/^[^/]*:/.test(destination.value)) return [];
  const target = resolveTarget(destination, command, context);
  const canonical = canonicalParsed(command, parsed, context, true);
  const targetClass = target.path === null ? undefined : classifyDeleteTarget(target.path, context.home);
  if (targetClass) return [{ id: HARDLINE_BY_CLASS[targetClass], canonical, command: command.text }];
  // Emptying a folder this way is `rm -rf DEST/*`: low risk for a real build folder, asked otherwise.
  const linkFree = target.path !== null && !target.dynamic && isBuildOrCachePath(target.path, context.workspaceRoot) ? linkFreePathOf(destination, target.path) : undefined;
  if (linkFree !== undefined) return [{ id: 'L01', canonical, command: command.text, linkFreePaths: [linkFree] }];
  return [{ id: 'D02', canonical, command: command.text, ...targetsOf([target]) }];
}

function removeHits(command: ExecutedCommand, context: RuleContext): RuleHit[] {
  const parsed = parseArgs(args(command));
  const recursive = hasOption(parsed, '-r', '-R', '--recursive');
  const canonical = canonicalParsed(command, parsed, context, true);
  const targets = parsed.operands.map((word) => resolveTarget(word, command, context));
  const hit = (id: RuleId): RuleHit => ({ id, canonical, command: command.text, ...targetsOf(targets) });
  const hits: RuleHit[] = [];
  if (command.wrappers.includes('xargs')) hits.push(hit('D38'));
  if (command.wrappers.some((wrapper) => wrapper.startsWith('find -exec') || wrapper.startsWith('find -ok'))) hits.push(hit('D39'));
  // One file there is enough to lose commits: a pack holds most of them, a ref names a branch.
  if (targets.some((target) => target.path !== null && isGitHistoryPath(target.path))) hits.push(hit('N33'));
  if (recursive) {
    const hardline = new Set(targets.flatMap((target) => (target.path === null ? [] : [classifyDeleteTarget(target.path, context.home)])));
    for (const targetClass of ['root', 'system', 'home'] as const) if (hardline.has(targetClass)) hits.push(hit(HARDLINE_BY_CLASS[targetClass]));
    if (hits.some((candidate) => candidate.id.startsWith('H'))) return hits;
    const contained =
      targets.length > 0 &&
      !command.extraArgsUnknown &&
      targets.every((target) => target.path !== null && !target.dynamic && isBuildOrCachePath(target.path, context.workspaceRoot));
    // The name says "build folder"; only the backend can say whether it is one (the gate asks it).
    const linkFreePaths = contained ? parsed.operands.map((word, index) => linkFreePathOf(word, targets[index]?.path ?? null)) : [];
    if (contained && linkFreePaths.every((path) => path !== undefined)) {
      hits.push({ ...hit('L01'), linkFreePaths: [...new Set(linkFreePaths)] });
      return hits;
    }
    const longOnly = hasOption(parsed, '--recursive') && !hasOption(parsed, '-r', '-R');
    hits.push(hit(longOnly ? 'D03' : 'D02'));
    return hits;
  }
  if (targets.some((target) => target.path !== null && !isInside(target.path, context.workspaceRoot))) hits.push(hit('D01'));
  else if (!command.extraArgsUnknown && targets.some((target) => target.path === null)) hits.push(hit('U05'));
  return hits;
}

/**
 * The path whose every component must be a real folder (or absent) for a build-folder delete to
 * stay inside that folder: the target itself, or the folder a final glob lists. Undefined when the
 * written form can leave it whatever the folders are: `..` after a link, or a glob whose matches
 * the delete enters (a glob before the last component, or followed by a slash) and so follows
 * when they are links.
 */
function linkFreePathOf(word: ShellWord, resolved: string | null): string | undefined {
  const written = word.guess ?? word.value;
  if (resolved === null || /(?:^|\/)\.\.(?:\/|$)/.test(written)) return undefined;
  if (!word.glob) return resolved;
  const components = resolved.split('/');
  const firstGlob = components.findIndex(isGlobPattern);
  const entersMatches = /\/\.?\/*$/.test(written);
  if (firstGlob !== components.length - 1 || entersMatches) return undefined;
  return components.slice(0, -1).join('/') || '/';
}

/** The known, fixed paths of a delete (`targets`), for the gate to follow through links. */
function targetsOf(targets: readonly ResolvedPath[]): { targets?: string[] } {
  // A glob's matches are found where its folder leads: that folder is what must be checked.
  const folderOf = (path: string) => path.split('/').slice(0, Math.max(1, path.split('/').findIndex(isGlobPattern))).join('/') || '/';
  const known = targets.flatMap((target) => (target.path === null || target.dynamic ? [] : [target.glob ? folderOf(target.path) : target.path]));
  return known.length ? { targets: [...new Set(known)] } : {};
}

/** `find -delete`: dangerous; over a whole root, system or home directory it is a hardline wipe. */
function findHits(command: ExecutedCommand, context: RuleContext): RuleHit[] {
  const words = args(command);
  if (!words.some((word) => word.value === '-delete')) return [];
  const starts = findStartPaths(words).map((word) => resolveTarget(word, command, context));
  const shown = starts.map((start) => (start.path === null ? '?' : displayPath(start.path, context.home)));
  const canonical = canonicalCommand(command, ['find', ...shown, ...words.filter((word) => word.value.startsWith('-')).map((word) => word.value)]);
  const hits: RuleHit[] = [{ id: 'D40', canonical, command: command.text, ...targetsOf(starts) }];
  if (!findIsUnfiltered(words)) return hits;
  for (const start of starts) {
    const targetClass = start.path === null ? undefined : classifyDeleteTarget(start.path, context.home);
    if (targetClass) hits.push({ id: HARDLINE_BY_CLASS[targetClass], canonical, command: command.text });
  }
  return hits;
}
