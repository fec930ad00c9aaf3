// Program names: the lower-cased basename of a literal name, and for names built at run time
// the commands they most plausibly are (split `$IFS`/brace words, known variables, globs that
// match a program the rules know), so an obfuscated `rm -rf /` is still judged as one.
import type { ShellWord } from './analysis-types';
import { globToRegExp } from './glob';
import { literalWord } from './shell-words';

/** Programs a globbed name (`/???/r?`) is matched against. */
const GLOB_CANDIDATES = [
  'rm', 'dd', 'mkfs', 'mkfs.ext4', 'shutdown', 'reboot', 'halt', 'poweroff', 'init', 'telinit', 'kill', 'killall', 'pkill', 'chmod',
  'chown', 'systemctl', 'sh', 'bash', 'zsh', 'dash', 'ksh', 'curl', 'wget', 'python', 'python3', 'perl', 'ruby', 'node', 'sudo', 'git',
  'find', 'xargs', 'tee', 'cp', 'mv', 'sed', 'eval', 'env', 'docker', 'shred', 'wipefs',
];

export function programOf(word: ShellWord | undefined): string | null {
  if (!word) return null;
  let text: string | undefined;
  if (word.literal && !word.glob && word.fields === undefined) text = word.value;
  else if (word.guess !== undefined && !word.glob && word.fields === undefined) text = word.guess;
  if (text === undefined || text === '') return null;
  return text.slice(text.lastIndexOf('/') + 1).toLowerCase().replace(/\.exe$/, '');
}

export function guessedArgvs(nameWord: ShellWord, argv: ShellWord[]): ShellWord[][] {
  if (nameWord.fields) return argv[0] && !/[$`]/.test(argv[0].value) ? [argv] : [];
  if (nameWord.guess !== undefined) return [[literalWord(nameWord.guess, nameWord.raw), ...argv.slice(1)]];
  if (!nameWord.glob || !nameWord.literal) return [];
  const base = nameWord.value.slice(nameWord.value.lastIndexOf('/') + 1);
  const pattern = globToRegExp(base);
  return GLOB_CANDIDATES.filter((candidate) => pattern.test(candidate)).map((candidate) => [literalWord(candidate, nameWord.raw), ...argv.slice(1)]);
}
