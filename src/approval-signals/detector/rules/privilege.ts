// sudo reading a password from stdin (`-S`) or an askpass helper (`-A`): the brute-force vector
// the original blocks. A plain `sudo cmd` (which prompts) is judged by the command it runs.
import type { Invocation } from '../analysis-types';
import type { RuleHit } from '../rule-catalog';
import { canonicalCommand } from './rule-helpers';
import type { Rule } from './rule-types';

const VALUED_SHORT = 'ugCDhprtTU';
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
  }
  return hits;
};

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
