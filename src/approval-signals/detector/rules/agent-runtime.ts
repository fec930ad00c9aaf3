// Commands that stop the agent's own runtime from inside it: the original Hermes gateway
// (`hermes gateway stop`, `hermes update`, a gateway started in the background outside systemd).
import type { ExecutedCommand } from '../analysis-types';
import type { RuleHit } from '../rule-catalog';
import { args, canonicalWords } from './rule-helpers';
import type { Rule } from './rule-types';

/** `hermes` global options that take a value (`-p PROFILE`). */
const HERMES_VALUED = new Set(['-p', '--profile', '--config', '-c', '--home']);

export const agentRuntimeRules: Rule = (input) => {
  const hits: RuleHit[] = [];
  for (const command of input.analysis.commands) {
    const hit = (id: RuleHit['id']) => hits.push({ id, canonical: canonicalWords(command), command: command.text });
    if (command.program === 'hermes') {
      const [subcommand, verb] = hermesOperands(command);
      if (subcommand === 'gateway' && (verb === 'stop' || verb === 'restart')) hit('D41');
      if (subcommand === 'update') hit('D42');
    }
    if (startsGatewayDetached(command)) hit(command.wrappers.some((wrapper) => wrapper === 'nohup' || wrapper === 'setsid') ? 'D46' : 'D45');
  }
  return hits;
};

function hermesOperands(command: ExecutedCommand): string[] {
  const operands: string[] = [];
  const words = args(command);
  for (let index = 0; index < words.length; index++) {
    const value = words[index]!.value;
    if (HERMES_VALUED.has(value)) index++;
    else if (!value.startsWith('-')) operands.push(value);
  }
  return operands;
}

/** `python -m hermes_cli.main gateway run --replace` in the background or under nohup/setsid. */
function startsGatewayDetached(command: ExecutedCommand): boolean {
  const words = command.argv.map((word) => word.value);
  const module = words.findIndex((word) => /(?:^|\/)hermes_cli[./]main(?:\.py)?$/.test(word) || word === 'hermes_cli.main');
  if (module === -1) return false;
  const rest = words.slice(module + 1);
  const starts = rest.includes('gateway') && rest.includes('run') && rest.includes('--replace');
  const detached = command.background || command.wrappers.some((wrapper) => wrapper === 'nohup' || wrapper === 'setsid');
  return starts && detached;
}
