// Processes and the machine: killing everything, force kills, killing the agent's own runtime
// (`pkill -f gateway`, `kill $(pgrep hermes)`), shutdown/reboot in all its spellings, fork bombs.
import type { ExecutedCommand, FunctionDefinition } from '../analysis-types';
import { hasOption, optionValue, parseArgs } from '../flags';
import { POWER_COMMANDS } from '../program-names';
import type { RuleHit } from '../rule-catalog';
import { args, canonicalWords } from './rule-helpers';
import type { Rule } from './rule-types';

const KILL_SIGNAL = /^-?(?:9|KILL|SIGKILL)$/i;
/** Process names whose death stops this runtime or the original's gateway. */
const SELF_PROCESS = /hermes|gateway|temporal/i;

export const processRules: Rule = (input) => {
  const hits: RuleHit[] = [];
  for (const command of input.analysis.commands) {
    const hit = (id: RuleHit['id']) => hits.push({ id, canonical: canonicalWords(command), command: command.text });
    switch (command.program) {
      case 'kill':
        killHits(command, hit);
        break;
      case 'pkill':
        pkillHits(command, hit);
        break;
      case 'killall':
        killallHits(command, hit);
        break;
      case 'killall5':
        hit('H08');
        break;
      case 'shutdown':
        if (!args(command).some((word) => ['-c', '--help'].includes(word.value))) hit('H09');
        break;
      case 'init':
      case 'telinit':
        if (['0', '6'].includes(args(command)[0]?.value ?? '')) hit(command.program === 'init' ? 'H10' : 'H12');
        break;
      default:
        if (command.program !== null && POWER_COMMANDS.has(command.program) && !args(command).some((word) => word.value === '--help')) hit('H09');
    }
  }
  return [...hits, ...forkBombHits(input.analysis.functions)];
};

function killHits(command: ExecutedCommand, hit: (id: RuleHit['id']) => void): void {
  const words = args(command);
  if (words.some((word) => ['-l', '-L', '--list', '--table'].includes(word.value))) return;
  // `kill -1` alone: the original treats it as kill-all; so does this runtime (caution wins).
  if (words.length === 1 && words[0]!.value === '-1') return hit('H08');
  const parsed = parseArgs(words, { shortValued: 'sn', numericOperands: true });
  const firstIsSignal = words[0] !== undefined && /^-/.test(words[0].value) && words[0].value !== '--';
  const pids = parsed.operands.filter((word, index) => !(index === 0 && firstIsSignal && word === words[0]));
  const signal = optionValue(parsed, '-s', '-n') ?? (firstIsSignal ? words[0]!.value : undefined);
  if (pids.some((word) => word.value === '-1')) hit('H08');
  if (signal !== undefined && KILL_SIGNAL.test(signal)) hit('D20');
  for (const word of words) {
    for (const substitution of word.substitutions) {
      if (substitution.commands.some((inner) => inner.program === 'pgrep' || inner.program === 'pidof')) hit(substitution.kind === '`' ? 'D49' : 'D48');
    }
  }
}

function pkillHits(command: ExecutedCommand, hit: (id: RuleHit['id']) => void): void {
  const parsed = parseArgs(args(command), { shortValued: 'gGPstuUF', longValued: ['signal', 'group', 'parent', 'session', 'terminal', 'euid', 'uid', 'pidfile', 'ns', 'nslist'] });
  const signal = optionValue(parsed, '--signal');
  if (args(command).some((word) => /^-(?:9|KILL|SIGKILL)$/i.test(word.value)) || (signal !== undefined && KILL_SIGNAL.test(signal))) hit('D20');
  if (parsed.operands.some((word) => SELF_PROCESS.test(word.value) || word.value === 'node')) hit('D47');
}

function killallHits(command: ExecutedCommand, hit: (id: RuleHit['id']) => void): void {
  const words = args(command);
  if (words.some((word) => ['-l', '--list', '-V', '--version'].includes(word.value))) return;
  const parsed = parseArgs(words, { shortValued: 'sunoyYZ', longValued: ['signal', 'user', 'older-than', 'younger-than', 'context'] });
  const signal = optionValue(parsed, '-s', '--signal');
  if (words.some((word) => /^-(?:9|KILL|SIGKILL)$/i.test(word.value))) hit('D21');
  if (signal !== undefined && KILL_SIGNAL.test(signal)) hit('D22');
  if (hasOption(parsed, '-r', '--regexp')) hit('D23');
  if (parsed.operands.some((word) => SELF_PROCESS.test(word.value) || word.value === 'node')) hit('D47');
}

/** A function that calls itself in a pipeline or in the background: `:(){ :|:& };:`. */
function forkBombHits(functions: readonly FunctionDefinition[]): RuleHit[] {
  const hits: RuleHit[] = [];
  for (const definition of functions) {
    const recursive = definition.bodyCommands.filter((command) => command.name === definition.name || command.path === definition.name);
    const bomb = recursive.find((command) => command.pipeline !== undefined || command.background);
    if (bomb) hits.push({ id: 'H07', canonical: `${definition.name}() { ${definition.name} | ${definition.name} & }`, command: bomb.text });
  }
  return hits;
}
