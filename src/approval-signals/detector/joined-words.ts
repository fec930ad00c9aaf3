// Several words joined into one command string, as `eval`, `ssh host ...` and `watch` do before
// handing them to a shell.
import type { ShellWord } from './analysis-types';

export function joinWords(words: readonly ShellWord[]): ShellWord {
  const literal = words.every((word) => word.literal);
  const guesses = words.map((word) => word.guess ?? (word.literal ? word.value : undefined));
  const joined: ShellWord = {
    raw: words.map((word) => word.raw).join(' '),
    value: words.map((word) => word.value).join(' '),
    literal,
    quoted: words.some((word) => word.quoted),
    variables: words.flatMap((word) => word.variables),
    substitutions: words.flatMap((word) => word.substitutions),
    glob: words.some((word) => word.glob),
  };
  if (!literal && guesses.every((guess) => guess !== undefined)) joined.guess = guesses.join(' ');
  return joined;
}
