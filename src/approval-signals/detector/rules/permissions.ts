// Permissions: world/other-writable modes, recursive mode or owner changes on system paths,
// recursive chown to root, and `chmod +x x && ./x` (a script made executable and run at once).
import type { ExecutedCommand, ShellWord } from '../analysis-types';
import { hasOption, parseArgs } from '../flags';
import { isSystemConfigPath } from '../path-classes';
import type { RuleHit, RuleId } from '../rule-catalog';
import { literalWord } from '../shell-words';
import { args, canonicalParsed, resolveTarget } from './rule-helpers';
import { commandsNamed, type Rule, type RuleContext, type RuleInput } from './rule-types';

const SYSTEM_TREES = /^\/(?:etc|usr|bin|sbin|lib\w*|boot|var|opt|srv|root|sys|proc|dev|home|Users|System|Library|private)?$/;

export const permissionRules: Rule = (input) => [
  ...commandsNamed(input, 'chmod').flatMap((command) => chmodHits(command, input.context)),
  ...commandsNamed(input, 'chown', 'chgrp').flatMap((command) => chownHits(command, input.context)),
  ...executeAfterChmod(input),
];

/** chmod modes may look like options (`chmod -w f`): split them off before parsing. */
function chmodParts(command: ExecutedCommand): { mode: string | undefined; parsed: ReturnType<typeof parseArgs> } {
  const words = args(command);
  const modeIndex = words.findIndex((word) => !/^--?[a-zA-Z]/.test(word.value) || /^-[rwxXst]+(?:,|$)/.test(word.value));
  const mode = modeIndex === -1 ? undefined : words[modeIndex]?.value;
  const rest = words.filter((_, index) => index !== modeIndex);
  return { mode, parsed: parseArgs(rest, { longValued: ['reference'] }) };
}

export function isWorldWritable(mode: string): boolean {
  if (/^[0-7]{3,4}$/.test(mode)) return (Number(mode[mode.length - 1]) & 2) !== 0;
  return mode.split(',').some((clause) => {
    const match = /^([ugoa]*)([-+=])([rwxXst]*)$/.exec(clause);
    if (!match) return false;
    const [, who = '', operator, permissions = ''] = match;
    return operator !== '-' && permissions.includes('w') && (who.includes('o') || who.includes('a'));
  });
}

function chmodHits(command: ExecutedCommand, context: RuleContext): RuleHit[] {
  const { mode, parsed } = chmodParts(command);
  if (mode === undefined) return [];
  const canonical = canonicalParsed(command, { ...parsed, operands: [literalWord(mode), ...parsed.operands] }, context, false);
  const hits: RuleHit[] = [];
  const hit = (id: RuleId) => hits.push({ id, canonical, command: command.text });
  if (isWorldWritable(mode)) hit('D07');
  if (hasOption(parsed, '-R', '--recursive') && touchesSystemPath(parsed.operands, command, context)) hit('N02');
  return hits;
}

function chownHits(command: ExecutedCommand, context: RuleContext): RuleHit[] {
  const parsed = parseArgs(args(command), { longValued: ['reference', 'from'] });
  const [owner, ...targets] = parsed.operands;
  if (!owner || !hasOption(parsed, '-R', '--recursive')) return [];
  const canonical = canonicalParsed(command, parsed, context, false);
  const hits: RuleHit[] = [];
  if (command.program === 'chown' && /^(?:root|0)(?:[:.]|$)/.test(owner.value)) hits.push({ id: hasOption(parsed, '-R') ? 'D09' : 'D10', canonical, command: command.text });
  if (touchesSystemPath(targets, command, context)) hits.push({ id: 'N02', canonical, command: command.text });
  return hits;
}

function touchesSystemPath(targets: readonly ShellWord[], command: ExecutedCommand, context: RuleContext): boolean {
  return targets.some((word) => {
    const path = resolveTarget(word, command, context).path;
    return path !== null && (SYSTEM_TREES.test(path) || isSystemConfigPath(path) || path === context.home);
  });
}

/** `chmod +x x.sh && ./x.sh`: the file is run right after being made executable. */
function executeAfterChmod(input: RuleInput): RuleHit[] {
  const made = new Set<string>();
  const hits: RuleHit[] = [];
  for (const command of input.analysis.commands) {
    if (command.program === 'chmod') {
      const { mode, parsed } = chmodParts(command);
      if (mode !== undefined && /^[ugoa]*\+[rwX]*x|^[0-7]*[1357][0-7]{0,2}$/.test(mode)) {
        for (const word of parsed.operands) made.add(basename(word.value));
      }
      continue;
    }
    if (made.size && command.path.includes('/') && made.has(basename(command.path))) {
      hits.push({ id: 'D71', canonical: `chmod +x ${command.path}`, command: command.text });
    }
  }
  return hits;
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}
