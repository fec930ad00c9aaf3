// Which shell commands only look at things (ls, cat, grep, git status, ...) and so may run beside
// the other calls of their turn: decided on the detector's own parse, the one reader of shell
// text in the project. Conservative: a write (other than to /dev/null; an output option too), a background job, a
// wrapper, a function, a variable assignment, anything dynamic or unparsable, or an unknown program makes it not.
import os from 'node:os';
import type { Analysis, ExecutedCommand } from './detector/analysis-types';
import { analyseCommandText } from './detector/classify-text';
import { runsReadOnly } from './detector/read-only-programs';
import { isShellParserLoaded } from './detector/shell-parser';

/** Recent answers: a terminal call is asked twice (may it run beside the others, does it need a checkpoint). */
const recentAnswers = new Map<string, boolean>();
const ANSWERS_KEPT = 64;

/** False until the detector's parser is loaded (`loadCommandClassifier`): unknown is never read-only. */
export function isReadOnlyCommand(command: string): boolean {
  if (!isShellParserLoaded() || !command.trim()) return false;
  const known = recentAnswers.get(command);
  if (known !== undefined) return known;
  const answer = judgeReadOnly(command);
  recentAnswers.set(command, answer);
  if (recentAnswers.size > ANSWERS_KEPT) recentAnswers.delete(recentAnswers.keys().next().value!);
  return answer;
}

function judgeReadOnly(command: string): boolean {
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
  if (analysis.assigned.some(mayChangeWhatProgramsRun)) return false;
  if (analysis.writes.some((write) => !(write.target.literal && write.target.value === '/dev/null'))) return false;
  return analysis.commands.length > 0 && analysis.commands.every(isReadOnlyInvocation);
}

function isReadOnlyInvocation(command: ExecutedCommand): boolean {
  return !command.background && !command.host && command.wrappers.length === 0 && runsReadOnly(command);
}

/**
 * An assignment reaches a later program's environment when exported, under `set -a`, or when the
 * name was inherited (`PATH=.:$PATH; cat f` runs ./cat; `export GIT_EXTERNAL_DIFF=./x; git diff`
 * runs ./x). Programs obey upper-case names only, so a loop's `for f in *` keeps a read read-only.
 */
function mayChangeWhatProgramsRun(name: string): boolean {
  return name === '*' || /[A-Z]/.test(name);
}
