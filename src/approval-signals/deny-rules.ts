// User deny rules (`approvals.deny`): fnmatch-style globs over the whole command and over each
// command found inside it (so `sudo rm -rf x; ls` still matches `rm -rf *`). Case-insensitive.
import type { CommandVerdict } from './verdict';

/** `*` matches anything (slashes too), `?` one character, `[...]` a class (`[!...]` negated). */
export function fnmatchToRegExp(pattern: string): RegExp {
  let source = '';
  for (let index = 0; index < pattern.length; index += 1) {
    const char = pattern[index] as string;
    if (char === '*') source += '.*';
    else if (char === '?') source += '.';
    else if (char === '[' && pattern.indexOf(']', index + 2) !== -1) {
      const close = pattern.indexOf(']', index + 2);
      let body = pattern.slice(index + 1, close);
      const negated = body.startsWith('!');
      if (negated) body = body.slice(1);
      source += `[${negated ? '^' : ''}${body.replace(/[\\\]]/g, '\\$&')}]`;
      index = close;
    } else source += char.replace(/[.+^$(){}|\\[\]]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 'is');
}

/** The first deny pattern that matches, if any. */
export function matchDenyRule(command: string, verdict: CommandVerdict | undefined, patterns: readonly string[]): string | undefined {
  if (!patterns.length) return undefined;
  const candidates = [command, ...(verdict?.commands ?? []).flatMap((parsed) => [parsed.text, [parsed.name ?? '', ...parsed.args].join(' ')])]
    .map((text) => text.trim().replace(/\s+/g, ' '))
    .filter(Boolean);
  return patterns.find((pattern) => {
    const expression = fnmatchToRegExp(pattern.trim());
    return candidates.some((candidate) => expression.test(candidate));
  });
}
