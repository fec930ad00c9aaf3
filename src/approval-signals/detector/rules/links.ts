// Links made to what must not be written or read unasked: `ln -s ~/.bashrc notes` makes every
// later write to `notes` a write of the start-up file, and `cat notes` a read of it, while both
// name only a workspace file. Judged where the link is made, in the same text or not.
import type { ExecutedCommand, ShellWord } from '../analysis-types';
import { hasOption, optionValue, parseArgs } from '../flags';
import { isBlockDevice, isCredentialPath, isGitControlPath, isHomeDotfile, isSecretReadPath, runtimeHomesOf } from '../path-classes';
import { displayPath, isInside } from '../paths';
import type { RuleHit } from '../rule-catalog';
import { literalWord } from '../shell-words';
import { args, canonicalCommand, resolveTarget } from './rule-helpers';
import type { Rule, RuleContext } from './rule-types';

export const linkRules: Rule = (input) =>
  input.analysis.commands.flatMap((command) => {
    const linked = linkedFiles(command, input.context).filter((path) => mustNotBeReachedByLink(path, input.context));
    return linked.length ? [{ id: 'N42', canonical: canonicalCommand(command, [command.program ?? '?', ...linked.map((path) => displayPath(path, input.context.home))]), command: command.text } satisfies RuleHit] : [];
  });

/** The files a command makes a link to (symbolic or hard): `ln [-s] FILE... [NAME]`, `cp -s|-l`, `link FILE NAME`. */
function linkedFiles(command: ExecutedCommand, context: RuleContext): string[] {
  const words = args(command);
  if (command.program === 'link') return resolvedAgainst(words.slice(0, 1), [command.cwd], context);
  if (command.program !== 'ln' && command.program !== 'cp') return [];
  const parsed = parseArgs(words, { shortValued: 'St', longValued: ['target-directory', 'suffix', 'backup'] });
  if (command.program === 'cp' && !hasOption(parsed, '-s', '-l', '--symbolic-link', '--link')) return [];
  const directory = optionValue(parsed, '-t', '--target-directory');
  // With one operand `ln` makes the link in the current folder; otherwise the last one is the link.
  const link = directory === undefined && parsed.operands.length > 1 ? parsed.operands.at(-1) : undefined;
  const files = link ? parsed.operands.slice(0, -1) : parsed.operands;
  // A symbolic link's relative text is read from the link's folder: the name's parent, or the name when it is a folder.
  const linkPlace = link ? resolveTarget(link, command, context).path : directory === undefined ? command.cwd : resolveTarget(literalWord(directory), command, context).path;
  const folders = linkPlace === null ? [command.cwd] : [command.cwd, linkPlace, link ? linkPlace.slice(0, linkPlace.lastIndexOf('/')) || '/' : linkPlace];
  return resolvedAgainst(files, folders, context);
}

function resolvedAgainst(words: readonly ShellWord[], folders: readonly (string | null)[], context: RuleContext): string[] {
  return words.flatMap((word) => folders.map((cwd) => resolveTarget(word, { cwd }, context).path).filter((path): path is string => path !== null));
}

/** Start-up files and credentials, secrets, this runtime's own files, what git obeys, system configuration, raw devices. */
function mustNotBeReachedByLink(path: string, context: RuleContext): boolean {
  const runtimeHomes = runtimeHomesOf(context.protectedFiles, context.home);
  if (context.protectedFiles.some((file) => isInside(path, file)) || runtimeHomes.some((directory) => isInside(path, directory))) return true;
  if (isSecretReadPath(path, context.home, runtimeHomes) || isCredentialPath(path, context.home) || isHomeDotfile(path, context.home)) return true;
  return isGitControlPath(path) || isInside(path, '/etc') || isBlockDevice(path);
}
