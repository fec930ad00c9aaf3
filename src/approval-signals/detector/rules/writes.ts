// Files written by any program: redirection, `tee`, `cp`/`mv`/`install`/`ln`/`rsync`
// destinations, in-place edits (`sed -i`, `perl -i`), `truncate`, `dd of=`, output options of any
// program (`-o`, `--output`, `-O`, `--log-file`, `--prefix`, `-w`, ...), folders archives are
// unpacked into (`tar -C`, `unzip -d`), files created or patched (`touch`, `mkdir`, `patch`).
// Flagged when they land on raw devices, system configuration, credentials, the home folder's
// dotfiles, project env/config files, this runtime's own files, or what git obeys or keeps its
// history in.
import type { Analysis, ExecutedCommand, WriteTarget } from '../analysis-types';
import { hasOption, optionValue, parseArgs } from '../flags';
import { isBlockDevice, isCredentialPath, isGitControlPath, isGitHistoryPath, isHomeDirectory, isHomeDotfile, isOtherDevice, isProjectEnvOrConfig, isSystemConfigPath, runtimeHomesOf } from '../path-classes';
import { outputWrites } from '../output-options';
import { displayPath, isInside } from '../paths';
import type { RuleHit, RuleId } from '../rule-catalog';
import { describeScriptInvocation } from '../script-invocations';
import { literalWord } from '../shell-words';
import { args, canonicalCommand, resolveTarget } from './rule-helpers';
import type { Rule, RuleContext } from './rule-types';
import { lookupTable } from '../lookup-table';

type Category = 'device' | 'protected' | 'system' | 'credential' | 'dotfile' | 'homeroot' | 'project' | 'git' | 'history';

/** Rule per way of writing and category; `undefined`: that combination is not flagged. */
const RULES = lookupTable<Partial<Record<Category, RuleId>>>({
  redirect: { device: 'H06', protected: 'SELF01', system: 'D17', credential: 'D35', dotfile: 'N11', project: 'D37', git: 'N31', history: 'N33' },
  tee: { device: 'H06', protected: 'SELF01', system: 'D34', credential: 'D34', dotfile: 'N11', project: 'D36', git: 'N31', history: 'N33' },
  copy: { device: 'H06', protected: 'SELF01', system: 'D51', credential: 'D53', dotfile: 'N11', homeroot: 'N11', project: 'D52', git: 'N31', history: 'N33' },
  truncate: { protected: 'SELF01', system: 'D17', credential: 'D35', dotfile: 'N11', project: 'D37', git: 'N31', history: 'N33' },
  dd: { protected: 'SELF01', system: 'D17', credential: 'D35', dotfile: 'N11', git: 'N31', history: 'N33' },
  'in-place': { protected: 'D59', system: 'D57', credential: 'D54', dotfile: 'N11', git: 'N31', history: 'N33' },
  'in-place/long': { protected: 'D60', system: 'D58', credential: 'D55', dotfile: 'N11', git: 'N31', history: 'N33' },
  'in-place/perl': { protected: 'D61', system: 'D57', credential: 'D56', dotfile: 'N11', git: 'N31', history: 'N33' },
  output: { device: 'H06', protected: 'SELF01', system: 'N10', credential: 'N11', dotfile: 'N11', project: 'D52', git: 'N31', history: 'N33' },
  extract: { device: 'H06', protected: 'SELF01', system: 'N10', credential: 'N11', dotfile: 'N11', homeroot: 'N11', project: 'D52', git: 'N31', history: 'N33' },
});

export const writeRules: Rule = (input) => writeTargetsOf(input.analysis).flatMap((write) => classifyWrite(write, input.context));

/** Every file the text writes, by whatever means: redirections, a program's destinations and output options. */
export function writeTargetsOf(analysis: Analysis): WriteTarget[] {
  return [...analysis.writes, ...analysis.commands.flatMap((command) => [...commandWrites(command), ...outputWrites(command)])];
}

function classifyWrite(write: WriteTarget, context: RuleContext): RuleHit[] {
  const resolved = resolveTarget(write.target, write, context);
  // A directory only known at run time (`$HERMES_HOME/.env`) still has a telling file name.
  if (resolved.path === null) return hitsFor(write, isProjectEnvOrConfig(write.target.value) ? ['project'] : [], write.target.value);
  return writeHitsAt(write, resolved.path, context);
}

/** The rules a write of `path` (absolute, normalised) matches: where the write's own name or a link leads. */
export function writeHitsAt(write: WriteTarget, path: string, context: RuleContext): RuleHit[] {
  const categories: Category[] = [];
  if (isBlockDevice(path)) categories.push('device');
  if (context.protectedFiles.some((file) => isInside(path, file)) || runtimeHomesOf(context.protectedFiles, context.home).some((directory) => isInside(path, directory))) categories.push('protected');
  if (isSystemConfigPath(path) || isOtherDevice(path)) categories.push('system');
  if (isCredentialPath(path, context.home)) categories.push('credential');
  else if (isHomeDotfile(path, context.home)) categories.push('dotfile');
  if (isHomeDirectory(path, context.home) || path === '/') categories.push('homeroot');
  if (isProjectEnvOrConfig(path)) categories.push('project');
  if (isGitControlPath(path)) categories.push('git');
  else if (isGitHistoryPath(path)) categories.push('history');
  return hitsFor(write, categories, displayPath(path, context.home));
}

function hitsFor(write: WriteTarget, categories: Category[], shownPath: string): RuleHit[] {
  const table = RULES[write.flavour ? `${write.via}/${write.flavour}` : write.via] ?? {};
  const keyWrappers = write.wrappers.filter((wrapper) => ['sudo', 'doas', 'ssh', 'su -c'].includes(wrapper));
  const canonical = [...keyWrappers, write.program, shownPath].join(' ');
  return [...new Set(categories.flatMap((category) => table[category] ?? []))].map((id) => ({ id, canonical, command: write.command }));
}

function write(command: ExecutedCommand, via: WriteTarget['via'], target: WriteTarget['target'], program: string, flavour?: WriteTarget['flavour']): WriteTarget {
  return { via, target, cwd: command.cwd, command: command.text, program: canonicalCommand(command, [program]), wrappers: command.wrappers, ...(flavour ? { flavour } : {}) };
}

/** Files a command writes because of what it is, not because of a redirection. */
function commandWrites(command: ExecutedCommand): WriteTarget[] {
  const words = args(command);
  switch (command.program) {
    case 'tee':
      return parseArgs(words, { longValued: ['output-error'] }).operands.map((target) => write(command, 'tee', target, 'tee'));
    case 'rsync': {
      const parsed = parseArgs(words, { shortValued: 'efBT', longValued: ['exclude', 'include', 'filter', 'rsh', 'exclude-from', 'include-from', 'temp-dir', 'backup-dir', 'suffix', 'chmod', 'chown', 'rsync-path'] });
      const destination = parsed.operands.at(-1);
      if (!destination || parsed.operands.length < 2 || /^[^/]*:/.test(destination.value)) return [];
      return [write(command, 'extract', destination, 'rsync')];
    }
    case 'cp':
    case 'mv':
    case 'install':
    case 'ln': {
      const parsed = parseArgs(words, { shortValued: command.program === 'install' ? 'mogStT' : 'St', longValued: ['target-directory', 'suffix', 'mode', 'owner', 'group'] });
      const directory = optionValue(parsed, '-t', '--target-directory');
      if (directory !== undefined) return [write(command, 'copy', literalWord(directory), command.program)];
      const destination = parsed.operands.at(-1);
      const enough = parsed.operands.length >= 2 || (command.program === 'install' && hasOption(parsed, '-d'));
      return destination && enough && !destination.value.includes(':') ? [write(command, 'copy', destination, command.program)] : [];
    }
    case 'sed':
      return sedWrites(command);
    case 'perl':
    case 'ruby': {
      const files = describeScriptInvocation(command.program, words)?.inPlaceFiles ?? [];
      return files.map((target) => write(command, 'in-place', target, `${command.program} -i`, 'perl'));
    }
    case 'truncate':
      return parseArgs(words, { shortValued: 'sr', longValued: ['size', 'reference'] }).operands.map((target) => write(command, 'truncate', target, 'truncate'));
    case 'dd':
      return words.filter((word) => word.value.startsWith('of=')).map((word) => write(command, 'dd', { ...word, value: word.value.slice(3) }, 'dd of='));
    default:
      return [];
  }
}

function sedWrites(command: ExecutedCommand): WriteTarget[] {
  const words = args(command);
  const inPlace = words.find((word) => /^-[a-zA-Z]*i/.test(word.value) && !word.value.startsWith('--')) ?? words.find((word) => word.value.startsWith('--in-place'));
  if (!inPlace) return [];
  const parsed = parseArgs(words, { shortValued: 'efl', longValued: ['expression', 'file', 'line-length'] });
  const hasScriptOption = hasOption(parsed, '-e', '-f', '--expression', '--file');
  // Without -e/-f the first operand is the script, unless it plainly is a path (`sed -i ~/.bashrc`).
  const first = parsed.operands[0];
  const firstIsScript = !hasScriptOption && first !== undefined && !/^(?:~|\.\.?\/|\$HOME|\$\{HOME\})/.test(first.value);
  const files = firstIsScript ? parsed.operands.slice(1) : parsed.operands;
  const long = inPlace.value.startsWith('--');
  return files.map((target) => write(command, 'in-place', target, long ? 'sed --in-place' : 'sed -i', long ? 'long' : undefined));
}
