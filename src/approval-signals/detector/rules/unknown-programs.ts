// The house rule: the detector never assumes an unknown program is harmless. A program no rule
// and no list knows is judged by its arguments: a path outside the workspace that matters
// (system folders, the home folder and its dotfiles, secrets, devices), another program or a
// shell it may run, or a remote address it may talk to, make it dangerous.
import type { ExecutedCommand, ShellWord } from '../analysis-types';
import { isSensitiveOutsideWorkspace } from '../path-classes';
import { isKnownProgram, isPowerfulProgram } from '../program-knowledge';
import { isInterpreter, isShell } from '../program-names';
import type { RuleHit } from '../rule-catalog';
import { namesDestroyingVerb } from './cli-subcommands';
import { args, canonicalWords, resolveTarget } from './rule-helpers';
import type { Rule, RuleContext } from './rule-types';

const REMOTE_URL = /^[a-z][a-z0-9+.-]*:\/\/(?!(?:localhost|127\.\d+\.\d+\.\d+|\[::1\]|0\.0\.0\.0)(?:[:/]|$))[^\s/]+/i;
const USER_AT_HOST = /^[\w.-]+@[\w-]+(?:\.[\w-]+)+(?::|$)/;

export const unknownProgramRules: Rule = (input) => {
  const hits: RuleHit[] = [];
  for (const command of input.analysis.commands) {
    const program = command.program;
    if (program === null || command.host) continue;
    const hit = (id: RuleHit['id'], detail?: string) => hits.push({ id, canonical: canonicalWords(command), command: command.text, ...(detail ? { detail } : {}) });
    if (command.speculative) {
      if (isShell(program) || isPowerfulProgram(program)) hit('N21', program);
      continue;
    }
    if (isKnownProgram(program) || isShell(program) || isInterpreter(program)) continue;
    const words = args(command);
    const sensitive = words.map((word) => sensitivePath(word, command, input.context)).find((path) => path !== undefined);
    if (sensitive !== undefined) hit('N20', sensitive);
    const remote = words.find((word) => REMOTE_URL.test(optionValueOf(word.value)) || USER_AT_HOST.test(word.value));
    if (remote) hit('N22', remote.value);
    const operands = words.filter((word) => !word.value.startsWith('-')).map((word) => word.value);
    if (namesDestroyingVerb(operands)) hit('N25', 'unknown CLI with a destroying verb');
  }
  return hits;
};

/** `--out=/etc/x` names `/etc/x`; `-o` alone names nothing. */
function optionValueOf(text: string): string {
  const equals = /^--?[\w-]+=(.*)$/s.exec(text);
  return equals ? equals[1]! : text;
}

function sensitivePath(word: ShellWord, command: ExecutedCommand, context: RuleContext): string | undefined {
  const text = optionValueOf(word.guess ?? word.value);
  if (!/^(?:\/|~|\$HOME\b|\$\{HOME\}|\.\.(?:\/|$))/.test(text)) return undefined;
  const resolved = resolveTarget({ ...word, value: text, raw: text, guess: text }, command, context);
  if (resolved.path === null) return undefined;
  return isSensitiveOutsideWorkspace(resolved.path, context.home, context.workspaceRoot) ? text : undefined;
}
