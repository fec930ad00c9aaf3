// Shared pieces for rules: canonical command text for approval keys and target paths.
import type { ExecutedCommand, ShellWord } from '../analysis-types';
import { canonicalOptions, type ParsedArgs } from '../flags';
import { displayPath, resolvePath, type ResolvedPath } from '../paths';
import type { RuleContext } from './rule-types';

/** Wrappers that change who or where a command runs as: part of the approval key. */
const KEYED_WRAPPERS = new Set(['sudo', 'sudo-rs', 'doas', 'run0', 'pkexec', 'please', 'su -c', 'runuser -c', 'ssh', 'chroot']);

/** `<keyed wrappers> <program> <sorted options> <operands>`, single-spaced. */
export function canonicalCommand(command: ExecutedCommand, parts: readonly string[]): string {
  const wrappers = command.wrappers.filter((wrapper) => KEYED_WRAPPERS.has(wrapper));
  return [...wrappers, ...parts].filter(Boolean).join(' ').replace(/\s+/g, ' ').trim();
}

/** Program, sorted options and operands (paths normalised when `paths`). */
export function canonicalParsed(command: ExecutedCommand, parsed: ParsedArgs, context: RuleContext, paths: boolean): string {
  const operands = parsed.operands.map((word) => (paths ? targetDisplay(word, command, context) : word.value));
  return canonicalCommand(command, [command.program ?? '?', ...canonicalOptions(parsed.options), ...operands]);
}

/** The command as written (quote-removed), for rules whose key needs no normalisation. */
export function canonicalWords(command: ExecutedCommand): string {
  return canonicalCommand(command, [command.program ?? '?', ...command.argv.slice(1).map((word) => word.value)]);
}

/** Resolves a target against the working directory of the command (`at.cwd`). */
export function resolveTarget(word: ShellWord, at: { cwd: string | null }, context: RuleContext): ResolvedPath {
  return resolvePath(word, at.cwd, context.home);
}

export function targetDisplay(word: ShellWord, at: { cwd: string | null }, context: RuleContext): string {
  const resolved = resolveTarget(word, at, context);
  return resolved.path === null ? word.value : displayPath(resolved.path, context.home);
}

export function args(command: ExecutedCommand): ShellWord[] {
  return command.argv.slice(1);
}
