// Services and containers: stopping/restarting system services (systemd, SysV, launchd),
// powering off through systemctl, and docker/compose lifecycle commands.
import type { ExecutedCommand } from '../analysis-types';
import { parseArgs } from '../flags';
import type { RuleHit, RuleId } from '../rule-catalog';
import { args, canonicalWords } from './rule-helpers';
import type { Rule } from './rule-types';

const SYSTEMCTL_STOPS = new Set(['stop', 'restart', 'try-restart', 'reload-or-restart', 'try-reload-or-restart', 'condrestart', 'force-reload', 'disable', 'mask', 'kill', 'isolate', 'emergency', 'rescue']);
const SYSTEMCTL_POWER = new Set(['poweroff', 'reboot', 'halt', 'kexec', 'soft-reboot']);
const SERVICE_STOPS = new Set(['stop', 'restart', 'force-reload', 'force-stop', 'zap']);
const COMPOSE_STOPS = new Set(['down', 'stop', 'kill', 'restart', 'rm']);
const DOCKER_STOPS = new Set(['stop', 'kill', 'restart']);

export const serviceRules: Rule = (input) => {
  const hits: RuleHit[] = [];
  for (const command of input.analysis.commands) {
    const hit = (id: RuleId) => hits.push({ id, canonical: canonicalWords(command), command: command.text });
    const words = args(command).map((word) => word.value);
    switch (command.program) {
      case 'systemctl': {
        const verb = parseArgs(args(command), { shortValued: 'tspHMno', longValued: ['type', 'signal', 'property', 'host', 'machine', 'root', 'lines', 'output', 'job-mode', 'kill-whom', 'state', 'what'] }).operands[0]?.value;
        if (verb && SYSTEMCTL_POWER.has(verb)) hit('H11');
        else if (verb && SYSTEMCTL_STOPS.has(verb)) hit('D18');
        break;
      }
      case 'service':
      case 'rc-service':
        if (SERVICE_STOPS.has(words[1] ?? '') || SERVICE_STOPS.has(words[0] ?? '')) hit('D18');
        break;
      case 'launchctl':
        launchctlHits(command, words, hit);
        break;
      case 'docker':
      case 'podman':
        dockerHits(words, hit);
        break;
      case 'docker-compose':
      case 'podman-compose':
        if (composeVerb(words) !== undefined) hit('D43');
        break;
      default:
        if (command.path.startsWith('/etc/init.d/') && SERVICE_STOPS.has(words[0] ?? '')) hit('D18');
    }
  }
  return hits;
};

/** `launchctl bootout/unload/remove/disable` unload any service; stopping the Hermes one is D50. */
function launchctlHits(command: ExecutedCommand, words: string[], hit: (id: RuleId) => void): void {
  const verb = words[0] ?? '';
  const hermes = words.slice(1).some((word) => /hermes/i.test(word));
  const stops = verb === 'stop' || verb === 'bootout' || verb === 'unload' || verb === 'remove' || (verb === 'kickstart' && words.includes('-k'));
  if (hermes && stops) hit('D50');
  if (['bootout', 'unload', 'remove', 'disable'].includes(verb) && command.program === 'launchctl') hit('D18');
}

function dockerHits(words: string[], hit: (id: RuleId) => void): void {
  const operands = words.filter((word) => !word.startsWith('-'));
  const [first, second] = operands;
  if (first === 'compose') {
    if (composeVerb(words.slice(words.indexOf('compose') + 1)) !== undefined) hit('D43');
    return;
  }
  const verb = first === 'container' ? second : first;
  if (verb && DOCKER_STOPS.has(verb)) hit('D44');
  if ((verb === 'rm' || verb === 'rmi') && words.some((word) => /^-[a-z]*f|^--force$/.test(word))) hit('D44');
  const prunes = second === 'prune' && ['system', 'volume', 'image', 'container', 'builder', 'network'].includes(first ?? '');
  if (prunes || (first === 'volume' && second === 'rm')) hit('N07');
}

function composeVerb(words: string[]): string | undefined {
  const parsed = parseArgs(words.map((value) => ({ raw: value, value, literal: true, quoted: false, variables: [], substitutions: [], glob: false })), {
    shortValued: 'fp',
    longValued: ['file', 'project-name', 'profile', 'env-file', 'project-directory', 'ansi', 'progress'],
    stopAtOperand: true,
  });
  const verb = words[parsed.rest];
  return verb !== undefined && COMPOSE_STOPS.has(verb) ? verb : undefined;
}
