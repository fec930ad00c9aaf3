// Work moved out of the workspace: `mv src /tmp/x`, and the programs that delete what they copied
// (`rsync --remove-source-files`, `tar --remove-files`, `zip -m`, `7z -sdel`). Outside the
// workspace a sandboxed command can write only private temporary folders, discarded when it ends,
// so there such a move is a delete; unsandboxed it takes the work out of the project all the same.
// A repository's history (`.git/objects`, refs, ...) moved anywhere is lost to git.
import type { ExecutedCommand, ShellWord } from '../analysis-types';
import { hasOption, optionValue, parseArgs, type ParsedArgs } from '../flags';
import { isGitHistoryPath } from '../path-classes';
import { isInside } from '../paths';
import type { RuleHit } from '../rule-catalog';
import { args, canonicalParsed, resolveTarget } from './rule-helpers';
import type { Rule, RuleContext } from './rule-types';

/** What a command moves and where to: `destination` undefined when it goes nowhere on disk (stdout, another host). */
interface Move {
  parsed: ParsedArgs;
  sources: ShellWord[];
  destination: ShellWord | undefined;
}

export const movedOutRules: Rule = (input) => {
  const hits: RuleHit[] = [];
  const { context } = input;
  for (const command of input.analysis.commands) {
    if (command.program === null || command.host) continue;
    const move = moveOf(command);
    if (!move?.sources.length) continue;
    const canonical = canonicalParsed(command, move.parsed, context, true);
    // Wherever it goes, a repository's history moved by another program than git is lost to it.
    if (move.sources.some((word) => isGitHistoryPath(resolveTarget(word, command, context).path ?? word.value))) {
      hits.push({ id: 'N33', canonical, command: command.text });
      continue;
    }
    if (!leavesWorkspace(move.destination, command, context)) continue;
    // A source known only at run time may be in the workspace: caution wins.
    const fromWorkspace = move.sources.some((word) => {
      const path = resolveTarget(word, command, context).path;
      return path === null || isInside(path, context.workspaceRoot);
    });
    if (fromWorkspace) hits.push({ id: 'N32', canonical, command: command.text });
  }
  return hits;
};

function leavesWorkspace(destination: ShellWord | undefined, command: ExecutedCommand, context: RuleContext): boolean {
  if (destination === undefined) return true;
  const path = resolveTarget(destination, command, context).path;
  return path !== null && !isInside(path, context.workspaceRoot);
}

function moveOf(command: ExecutedCommand): Move | undefined {
  const words = args(command);
  switch (command.program) {
    case 'mv': {
      const parsed = parseArgs(words, { shortValued: 'St', longValued: ['target-directory', 'suffix', 'backup'] });
      const directory = optionValue(parsed, '-t', '--target-directory');
      if (directory !== undefined) return { parsed, sources: parsed.operands, destination: wordOf(directory, words) };
      return { parsed, sources: parsed.operands.slice(0, -1), destination: parsed.operands.at(-1) };
    }
    case 'rsync': {
      const parsed = parseArgs(words, { shortValued: 'efBT', longValued: ['exclude', 'include', 'filter', 'rsh', 'exclude-from', 'include-from', 'temp-dir', 'backup-dir', 'suffix', 'chmod', 'chown', 'rsync-path'] });
      if (!hasOption(parsed, '--remove-source-files', '--remove-sent-files')) return undefined;
      const destination = parsed.operands.at(-1);
      return { parsed, sources: parsed.operands.slice(0, -1), destination: destination && /^[^/]*:/.test(destination.value) ? undefined : destination };
    }
    case 'tar':
      return tarMove(words);
    case 'zip': {
      const parsed = parseArgs(words, { shortValued: 'bnPtx', longValued: ['temp-path', 'suffixes', 'password', 'exclude', 'include'] });
      if (!hasOption(parsed, '-m', '--move')) return undefined;
      const [archive, ...sources] = parsed.operands;
      return { parsed, sources, destination: archive?.value === '-' ? undefined : archive };
    }
    case '7z':
    case '7za':
    case '7zz':
    case '7zr': {
      // 7-Zip's switches are whole words (`-sdel`, `-tzip`, `-pSECRET`), never bundles.
      if (!words.some((word) => word.value.toLowerCase() === '-sdel')) return undefined;
      const parsed: ParsedArgs = { options: [], operands: words.filter((word) => !word.value.startsWith('-')), rest: words.length };
      const [, archive, ...sources] = parsed.operands;
      return { parsed, sources, destination: archive };
    }
    default:
      return undefined;
  }
}

/** `tar --remove-files`: the archive (`-f`, or the word after an old-style `cf` bundle) is the destination; none is stdout. */
function tarMove(words: ShellWord[]): Move | undefined {
  const first = words[0];
  // Old style: `tar cf archive files...`, the first word's letters without a dash.
  const oldStyle = first !== undefined && /^[A-Za-z]+$/.test(first.value) && first.value.includes('f');
  const parsed = parseArgs(oldStyle ? words.slice(2) : words, { shortValued: 'fCbgHKLNTVX', longValued: ['file', 'directory', 'exclude', 'files-from', 'exclude-from', 'transform', 'owner', 'group', 'mode'] });
  if (!hasOption(parsed, '--remove-files')) return undefined;
  const archive = oldStyle ? words[1] : wordOf(optionValue(parsed, '-f', '--file'), words);
  return { parsed, sources: parsed.operands, destination: archive?.value === '-' ? undefined : archive };
}

/** The word an option's value came from (its quoting and guesses), or a literal one. */
function wordOf(value: string | undefined, words: readonly ShellWord[]): ShellWord | undefined {
  if (value === undefined) return undefined;
  return words.find((word) => word.value === value) ?? { ...words[0]!, value, raw: value, literal: true };
}
