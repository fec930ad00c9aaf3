// Privilege: sudo reading a password from stdin (`-S`) or an askpass helper (`-A`), the
// brute-force vector the original blocks; and anything that is not clearly read-only run with
// another user's rights (`sudo apt-get update`, `doas npm i -g x`, `su -c 'make install'`): with
// passwordless sudo on an ssh host it changes the system, so it asks (the original let it run).
import type { ExecutedCommand, Invocation } from '../analysis-types';
import { runsReadOnly } from '../read-only-programs';
import type { RuleHit } from '../rule-catalog';
import { onlyInspects } from './privileged-inspection';
import { canonicalCommand, canonicalWords } from './rule-helpers';
import type { Rule } from './rule-types';

const VALUED_SHORT = 'ugCDhprtTU';
/** Wrappers that run their command with another user's (by default root's) rights. */
const PRIVILEGE_WRAPPERS = new Set(['sudo', 'sudo-rs', 'doas', 'run0', 'pkexec', 'please', 'su']);
const VALUED_LONG = ['--user', '--group', '--close-from', '--chdir', '--host', '--prompt', '--role', '--type', '--command-timeout', '--other-user', '--chroot'];

export const privilegeRules: Rule = (input) => {
  const hits: RuleHit[] = [];
  for (const command of input.analysis.commands) {
    const invocations: Invocation[] = [...command.layers];
    if (command.program === 'sudo') invocations.push({ program: 'sudo', argv: command.argv });
    for (const invocation of invocations) {
      if (invocation.program !== 'sudo') continue;
      const id = sudoFlagRule(invocation.argv.slice(1).map((word) => word.value));
      // Keyed on the whole command sudo runs, not its program: `sudo -S apt-get update` approved
      // for the session does not cover `sudo -S apt-get remove ...`.
      if (id) hits.push({ id, canonical: canonicalCommand(command, ['sudo', ...sudoOptions(invocation), command.program ?? '', ...command.argv.slice(1).map((word) => word.value)]), command: command.text });
    }
    if (changesAsAnotherUser(command)) hits.push({ id: 'N41', canonical: canonicalWords(command), command: command.text });
  }
  return hits;
};

/**
 * A command run through a privilege wrapper that is not known to only read, or an edit as root
 * (`sudoedit`, `sudo -e`). A shell it runs (`sudo sh -c '...'`) is judged by the commands inside.
 */
function changesAsAnotherUser(command: ExecutedCommand): boolean {
  const words = command.argv.slice(1).map((word) => word.value);
  if (command.program === 'sudoedit' || ((command.program === 'sudo' || command.program === 'sudo-rs') && words.some((word) => word === '-e' || word === '--edit'))) return true;
  if (command.host || !command.layers.some((layer) => layer.program !== null && PRIVILEGE_WRAPPERS.has(layer.program))) return false;
  return !runsReadOnly(command) && !onlyInspects(command);
}

/** D72 for `-S`, `-A`, `--stdin`, `--askpass` (and their abbreviations), D73 inside a bundle (`-nS`). */
function sudoFlagRule(words: string[]): 'D72' | 'D73' | undefined {
  for (let index = 0; index < words.length; index++) {
    const word = words[index]!;
    if (word === '--' || !word.startsWith('-')) return undefined;
    if (word.startsWith('--')) {
      const name = word.split('=')[0]!;
      if ((name.length >= 4 && '--stdin'.startsWith(name)) || (name.length >= 3 && '--askpass'.startsWith(name))) return 'D72';
      if (VALUED_LONG.includes(name) && !word.includes('=')) index++;
      continue;
    }
    const letters = word.slice(1);
    for (let position = 0; position < letters.length; position++) {
      const letter = letters[position]!;
      if (letter === 'S' || letter === 'A') return letters.length > 1 ? 'D73' : 'D72';
      if (VALUED_SHORT.includes(letter)) {
        if (position === letters.length - 1) index++;
        break;
      }
    }
  }
  return undefined;
}

function sudoOptions(invocation: Invocation): string[] {
  const options: string[] = [];
  for (const word of invocation.argv.slice(1)) {
    if (!word.value.startsWith('-') || word.value === '--') break;
    options.push(word.value);
  }
  return options.sort();
}
