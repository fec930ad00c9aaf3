// Which shell commands only look at things (ls, cat, grep, git status, ...) and so may run beside
// the other calls of their turn: decided on the detector's own parse, the one reader of shell
// text in the project. Conservative: a write (other than to /dev/null; an output option too), a background job, a
// wrapper, a function, anything dynamic or unparsable, or an unknown program makes it not.
import os from 'node:os';
import type { Analysis, ExecutedCommand } from './detector/analysis-types';
import { analyseCommandText } from './detector/classify-text';
import { outputWrites } from './detector/output-options';
import { isShellParserLoaded } from './detector/shell-parser';

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

/** False until the detector's parser is loaded (`loadCommandClassifier`): unknown is never read-only. */
export function isReadOnlyCommand(command: string): boolean {
  if (!isShellParserLoaded() || !command.trim()) return false;
  try {
    // Paths do not matter for this question; any context will do.
    const { analysis, parseError } = analyseCommandText(command, { backend: 'local', cwd: '/', workspaceRoot: '/', home: os.homedir(), protectedFiles: [] });
    return parseError === undefined && isReadOnlyAnalysis(analysis);
  } catch {
    return false;
  }
}

function isReadOnlyAnalysis(analysis: Analysis): boolean {
  if (analysis.parseErrors.length || analysis.functions.length || analysis.unknowns.length) return false;
  if (analysis.writes.some((write) => !(write.target.literal && write.target.value === '/dev/null'))) return false;
  return analysis.commands.length > 0 && analysis.commands.every(isReadOnlyInvocation);
}

function isReadOnlyInvocation(command: ExecutedCommand): boolean {
  if (command.background || command.host || command.guessed || command.extraArgsUnknown || command.wrappers.length) return false;
  // An output option writes whatever the program is (`git log --output=FILE`, `tree -o FILE`).
  if (outputWrites(command).length) return false;
  const args = command.argv.slice(1);
  if (command.program === 'git') return args[0]?.literal === true && READ_ONLY_GIT.has(args[0].value);
  if (command.program === 'find') return !args.some((word) => !word.literal || FIND_ACTIONS_THAT_ACT.test(word.value));
  return command.program !== null && READ_ONLY_PROGRAMS.has(command.program);
}
