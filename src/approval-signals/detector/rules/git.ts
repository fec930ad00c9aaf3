// Destructive git: hard resets, force pushes, forced cleans, forced branch deletes, discarding
// the working tree, deleting remote refs, dropping stashes, expiring the reflog, pruning
// unreachable objects, rewriting history, and settings (`-c`, `git config`) that make git run commands.
import type { ExecutedCommand, ShellWord } from '../analysis-types';
import { gitSubcommandIndex } from '../git-arguments';
import type { RuleHit, RuleId } from '../rule-catalog';
import { args, canonicalCommand } from './rule-helpers';
import { commandsNamed, type Rule } from './rule-types';

/** `git -c key=value` settings that run programs. */
export const GIT_COMMAND_SETTINGS =
  /^(?:core\.(?:sshcommand|pager|editor|fsmonitor|hookspath|askpass|gitproxy|alternaterefscommand)|alias\.|credential\.|filter\.|diff\..*\.(?:textconv|command)|diff\.external|merge\..*\.driver|(?:merge|diff)tool\..*\.cmd|pager\.|interactive\.difffilter|remote\..*\.(?:uploadpack|receivepack)|trailer\..*\.(?:cmd|command)|gpg\.(?:.*\.)?program|sequence\.editor|uploadpack\.packobjectshook|protocol\.(?:.*\.)?allow|include\.path|includeif\.)/i;

export const gitRules: Rule = (input) => commandsNamed(input, 'git').flatMap(gitHits);

function gitHits(command: ExecutedCommand): RuleHit[] {
  const words = args(command);
  const hits: RuleHit[] = [];
  const index = gitSubcommandIndex(words);
  for (let option = 0; option < index; option++) {
    const value = words[option]!.value;
    const setting = value === '-c' ? words[option + 1]?.value : value.startsWith('-c') && value.length > 2 ? value.slice(2) : undefined;
    if (setting !== undefined && GIT_COMMAND_SETTINGS.test(setting)) hits.push(hit(command, 'N03', ['git', '-c', setting]));
  }
  const subcommand = words[index]?.value;
  const rest = words.slice(index + 1);
  const values = rest.map((word) => word.value);
  const id = subcommand ? (subcommandRule(subcommand, values, rest) ?? historyRule(subcommand, values)) : undefined;
  if (id) hits.push(hit(command, id, ['git', subcommand ?? '', ...values]));
  if (subcommand === 'config' && configSetsCommand(values)) hits.push(hit(command, 'N28', ['git', 'config', ...values]));
  return hits;
}

function hit(command: ExecutedCommand, id: RuleId, parts: string[]): RuleHit {
  return { id, canonical: canonicalCommand(command, parts), command: command.text };
}

const shortBundle = (values: string[], letter: string) => values.some((value) => /^-[a-zA-Z]+$/.test(value) && value.includes(letter));

function subcommandRule(subcommand: string, values: string[], rest: ShellWord[]): RuleId | undefined {
  switch (subcommand) {
    case 'reset':
      // git accepts abbreviations: `--har`, `--h` (but `--help` is help).
      return values.some((value) => value.length >= 3 && '--hard'.startsWith(value)) ? 'D64' : undefined;
    case 'push':
      if (pushDeletesRefs(values)) return 'N27';
      if (values.some((value) => value === '--force' || value.startsWith('--force-with-lease') || value === '--force-if-includes')) return 'D65';
      if (shortBundle(values, 'f')) return 'D66';
      return rest.slice(1).some((word) => word.value.startsWith('+') && word.value.length > 1) ? 'D65' : undefined;
    case 'clean':
      return values.includes('--force') || shortBundle(values, 'f') ? 'D67' : undefined;
    case 'branch':
      return branchRule(values);
    case 'checkout':
    case 'restore':
      return discardsWorkingTree(subcommand, values) ? 'N04' : undefined;
    // Forced forms that overwrite or delete modified files in the working tree.
    case 'switch':
      return values.some((value) => value === '--discard-changes' || value === '--force') || shortBundle(values, 'f') ? 'N04' : undefined;
    case 'checkout-index':
      return values.includes('--force') || shortBundle(values, 'f') ? 'N04' : undefined;
    case 'read-tree':
      return values.includes('--reset') && (values.includes('-u') || shortBundle(values, 'u')) ? 'N04' : undefined;
    case 'rm':
      return (values.includes('--force') || shortBundle(values, 'f')) && !values.includes('--cached') ? 'N04' : undefined;
    default:
      return undefined;
  }
}

/** `-D`, `-d -f`, `--delete --force` in either order; a plain `-d`/`--delete` is a safe delete. */
function branchRule(values: string[]): RuleId | undefined {
  const longDelete = values.indexOf('--delete');
  const longForce = values.indexOf('--force');
  if (shortBundle(values, 'D')) return 'D68';
  const shortDelete = shortBundle(values, 'd');
  const force = longForce !== -1 || shortBundle(values, 'f');
  if (shortDelete && force) return 'D68';
  if (longDelete !== -1 && force) return longForce !== -1 && longForce < longDelete ? 'D70' : 'D69';
  return undefined;
}

/** `git checkout -- .`, `git checkout -f`, `git restore .` throw away uncommitted work. */
function discardsWorkingTree(subcommand: string, values: string[]): boolean {
  if (subcommand === 'restore' && (values.includes('--staged') || values.includes('-S')) && !values.includes('--worktree') && !values.includes('-W')) return false;
  if (subcommand === 'checkout' && (values.includes('-f') || values.includes('--force'))) return true;
  const dashDash = values.indexOf('--');
  const paths = subcommand === 'restore' ? values.filter((value) => !value.startsWith('-')) : dashDash === -1 ? [] : values.slice(dashDash + 1);
  const everything = ['.', ':/', '*', ':/*', './'];
  return paths.some((path) => everything.includes(path)) || (subcommand === 'checkout' && dashDash === -1 && values.length === 1 && values[0] === '.');
}

/** `git push origin :main`, `--delete`, `-d`, `--mirror`, `--prune`: remote refs deleted. */
function pushDeletesRefs(values: string[]): boolean {
  if (values.some((value) => value === '--delete' || value === '--mirror' || value === '--prune' || (/^-[a-zA-Z]+$/.test(value) && value.includes('d')))) return true;
  return values.filter((value) => !value.startsWith('-')).slice(1).some((refspec) => refspec.startsWith(':') && refspec.length > 1);
}

const NOW = /^(?:now|all|0|never)$|^\d+\.(?:seconds?|minutes?)(?:\.ago)?$/;

/** History and refs that cannot be got back: stash drops, reflog expiry, pruning, rewrites. */
function historyRule(subcommand: string, values: string[]): RuleId | undefined {
  const operands = values.filter((value) => !value.startsWith('-'));
  const optionValue = (name: string) => values.find((value) => value.startsWith(`${name}=`))?.slice(name.length + 1) ?? (values.includes(name) ? values[values.indexOf(name) + 1] : undefined);
  switch (subcommand) {
    case 'stash':
      return operands[0] === 'clear' || operands[0] === 'drop' ? 'N27' : undefined;
    case 'reflog':
      return operands[0] === 'delete' || (operands[0] === 'expire' && values.some((value) => /^--expire(?:-unreachable)?=/.test(value))) ? 'N27' : undefined;
    case 'update-ref':
      return values.includes('-d') || values.includes('--stdin') ? 'N27' : undefined;
    case 'symbolic-ref':
      return values.includes('-d') || values.includes('--delete') ? 'N27' : undefined;
    case 'replace':
      return values.includes('-d') || values.includes('--delete') ? 'N27' : undefined;
    case 'gc': {
      const prune = optionValue('--prune');
      return prune !== undefined && NOW.test(prune) ? 'N27' : undefined;
    }
    case 'prune':
      return 'N27';
    case 'filter-branch':
    case 'filter-repo':
      return 'N27';
    case 'worktree':
      return operands[0] === 'remove' && (values.includes('--force') || values.includes('-f')) ? 'N27' : operands[0] === 'prune' ? undefined : undefined;
    case 'branch':
      return values.includes('-f') || values.includes('--force') ? 'N27' : undefined;
    case 'submodule':
      return operands[0] === 'deinit' && (values.includes('-f') || values.includes('--force')) ? 'N27' : undefined;
    case 'rm':
      return values.includes('-r') && (operands.includes('.') || operands.includes('*') || operands.includes(':/')) ? 'N27' : undefined;
    default:
      return undefined;
  }
}

/** `git config [--global] core.hooksPath X`, `alias.x '!cmd'`, `core.sshCommand`, ... */
function configSetsCommand(values: string[]): boolean {
  const operands = values.filter((value) => !value.startsWith('-'));
  if (values.some((value) => ['--get', '--get-all', '--list', '-l', '--unset', '--get-regexp'].includes(value))) return false;
  const key = operands[0] === 'set' ? operands[1] : operands[0];
  const hasValue = operands.length >= (operands[0] === 'set' ? 3 : 2);
  return key !== undefined && hasValue && GIT_COMMAND_SETTINGS.test(key);
}
