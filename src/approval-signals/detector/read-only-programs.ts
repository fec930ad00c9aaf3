// Programs (and git subcommands) that only look at things, whatever their arguments: the
// detector's knowledge of read-only runs, shared by the parallel-run decision and the privilege
// rule (a read-only command may run as root unasked; anything else asks).
import type { ExecutedCommand } from './analysis-types';
import { outputWrites } from './output-options';

// Programs that cannot change anything, whatever their arguments (no `env`, `date`, `hostname`,
// `uniq`: each can run or write something given the right arguments).
const READ_ONLY_PROGRAMS = new Set([
  'cat', 'head', 'tail', 'wc', 'ls', 'tree', 'stat', 'du', 'df', 'grep', 'egrep', 'fgrep', 'rg', 'echo', 'printf',
  'pwd', 'whoami', 'id', 'uname', 'uptime', 'printenv', 'which', 'type', 'true', 'false', 'test', '[', 'sleep',
  'basename', 'dirname', 'realpath', 'readlink', 'cut', 'tr', 'nl', 'diff', 'cmp', 'md5sum', 'sha1sum', 'sha256sum',
  'jq', 'ps', 'free', 'nproc', 'seq',
]);

/** `git` subcommands that do not change the repository or the working tree. */
const READ_ONLY_GIT = new Set(['status', 'log', 'diff', 'show', 'rev-parse', 'ls-files', 'blame', 'describe', 'shortlog']);

const FIND_ACTIONS_THAT_ACT = /^-(exec|execdir|ok|okdir|delete|fprint.*|fls)$/;

/** Whether the program and its arguments only read (wrappers, background and redirects are the caller's to judge). */
export function runsReadOnly(command: ExecutedCommand): boolean {
  if (command.guessed || command.extraArgsUnknown) return false;
  // An output option writes whatever the program is (`git log --output=FILE`, `tree -o FILE`).
  if (outputWrites(command).length) return false;
  const args = command.argv.slice(1);
  if (command.program === 'git') return args[0]?.literal === true && READ_ONLY_GIT.has(args[0].value);
  if (command.program === 'find') return !args.some((word) => !word.literal || FIND_ACTIONS_THAT_ACT.test(word.value));
  return command.program !== null && READ_ONLY_PROGRAMS.has(command.program);
}
