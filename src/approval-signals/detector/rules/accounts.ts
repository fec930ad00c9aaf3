// Privilege and persistence: setuid/setgid bits and file capabilities, interactive root shells
// (`sudo -i`, `sudo su`, `su -`, `sudo bash`), changes to accounts and sudo rights, scheduled jobs
// (`crontab`, `at`), services enabled to start by themselves, keys installed for remote logins.
import type { ExecutedCommand } from '../analysis-types';
import { parseArgs } from '../flags';
import { isCredentialPath, isSecretReadPath } from '../path-classes';
import { isShell } from '../program-names';
import type { RuleHit, RuleId } from '../rule-catalog';
import { args, canonicalWords, resolveTarget } from './rule-helpers';
import type { Rule, RuleContext } from './rule-types';

const ROOT_WRAPPERS = new Set(['sudo', 'doas', 'run0', 'pkexec', 'sudo-rs', 'please']);
/** Wrappers that enter the host's (or another root's) namespaces: a shell there is a root shell. */
const HOST_ENTRY = new Set(['su', 'nsenter', 'chroot', 'machinectl', 'setpriv', 'unshare']);
const ACCOUNT_TOOLS = new Set(['visudo', 'useradd', 'userdel', 'usermod', 'adduser', 'deluser', 'groupadd', 'groupdel', 'groupmod', 'gpasswd', 'passwd', 'chpasswd', 'chsh', 'vipw', 'vigr', 'pwconv', 'newusers', 'dscl', 'sysadminctl']);

export const accountRules: Rule = (input) => {
  const hits: RuleHit[] = [];
  for (const command of input.analysis.commands) {
    const hit = (id: RuleId) => hits.push({ id, canonical: canonicalWords(command), command: command.text });
    const program = command.program;
    if (program === null || command.host) continue;
    const words = args(command).map((word) => word.value);
    if (program === 'chmod' && words.some(setsSpecialBit)) hit('N12');
    if (program === 'setcap' && !words.includes('-r') && !words.includes('-v')) hit('N12');
    if (interactiveRootShell(command)) hit('N13');
    if (ACCOUNT_TOOLS.has(program) && !(program === 'passwd' && words.some((word) => ['-S', '--status'].includes(word)))) hit('N14');
    if (program === 'crontab' && !(words.length > 0 && words.every((word) => /^-[a-zA-Z]*l[a-zA-Z]*$/.test(word) || word === '-u' || !word.startsWith('-') && words[words.indexOf(word) - 1] === '-u'))) hit('N15');
    if ((program === 'at' || program === 'batch') && !words.some((word) => /^-[lcV]$/.test(word))) hit('N15');
    if (program === 'atq') continue;
    if (program === 'systemctl' && words.some((word) => word === 'enable' || word === 'link' || word === 'preset' || word === 'set-default')) hit('N16');
    if (program === 'launchctl' && words.some((word) => word === 'load' || word === 'bootstrap' || word === 'enable')) hit('N16');
    if (program === 'ssh-copy-id') hit('N11');
    if ((program === 'chown' || program === 'chgrp' || program === 'chmod' || program === 'setfacl') && loosensCredential(command, input.context)) hit('N30');
  }
  return hits;
};

/** `chown other ~/.ssh`, `chmod 644 ~/.ssh/id_rsa`, `setfacl -m u:x:r ~/.aws/credentials`: others may then read it. */
function loosensCredential(command: ExecutedCommand, context: RuleContext): boolean {
  const words = args(command);
  const parsed = parseArgs(words, { shortValued: command.program === 'setfacl' ? 'mMxX' : '', longValued: ['reference', 'from'] });
  const [first, ...rest] = parsed.operands;
  const targets = command.program === 'setfacl' ? parsed.operands : rest;
  if (command.program === 'chmod' && first !== undefined) {
    const mode = first.value;
    const opens = /^[0-7]{3,4}$/.test(mode) ? (Number(mode.at(-2)) & 4) !== 0 || (Number(mode.at(-1)) & 4) !== 0 : /(?:^|,)[ugoa]*[go][ugoa]*[+=][rwx]*r|(?:^|,)a?\+r/.test(mode);
    if (!opens) return false;
  }
  return targets.some((word) => {
    const path = resolveTarget(word, command, context).path;
    return path !== null && (isSecretReadPath(path, context.home) || (command.program !== 'chmod' && isCredentialPath(path, context.home)));
  });
}

/** `u+s`, `g+s`, `+s`, `4755`, `2755`, `6755`. */
function setsSpecialBit(mode: string): boolean {
  if (/^[0-7]{4,5}$/.test(mode)) return (Number(mode[mode.length - 4]) & 6) !== 0;
  return mode.split(',').some((clause) => /^[ugoa]*[+=][rwxXt]*s/.test(clause));
}

/** A root shell with no command: `sudo -i`, `sudo -s`, `sudo su`, `su -`, `sudo bash`, `doas sh`, `run0`. */
function interactiveRootShell(command: ExecutedCommand): boolean {
  const program = command.program ?? '';
  const words = args(command).map((word) => word.value);
  const underRoot = command.layers.some((layer) => layer.program !== null && (ROOT_WRAPPERS.has(layer.program) || HOST_ENTRY.has(layer.program)));
  if (ROOT_WRAPPERS.has(program)) {
    // The wrapper was not peeled: it runs no command, so an option asks for a shell (or it is `run0` alone).
    if (program === 'sudo' || program === 'sudo-rs') return words.some((word) => /^-[a-zA-Z]*[is]/.test(word) || word === '--login' || word === '--shell');
    if (program === 'doas') return words.includes('-s') || words.length === 0;
    return words.every((word) => word.startsWith('-'));
  }
  if (program === 'su') return !words.some((word) => /^-[a-zA-Z]*c|^--command/.test(word));
  if (program === 'machinectl') return words[0] === 'shell' || words[0] === 'login';
  if (underRoot && isShell(program)) return !words.some((word) => /^-[a-zA-Z]*c/.test(word)) && words.every((word) => word.startsWith('-'));
  return false;
}
