// User deny rules (`approvals.deny`): fnmatch-style globs over the whole command and over each
// command found inside it (so `sudo rm -rf x; ls` still matches `rm -rf *`). Case-insensitive.
import { RE2JS } from 're2js';
import type { CommandVerdict } from './verdict';

/**
 * `*` matches anything (slashes too), `?` one character, `[...]` a class (`[!...]` negated). On
 * a linear-time engine (RE2): the command is the model's, and with a backtracking one a rule of
 * a few stars (`*curl*|*sh*`) took time the square of its length (0.2 s for 40,000 characters).
 */
export function fnmatchToRegExp(pattern: string): { test(text: string): boolean } {
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
  const compiled = RE2JS.compile(`^${source}$`, RE2JS.CASE_INSENSITIVE | RE2JS.DOTALL);
  return { test: (text) => compiled.matches(text) };
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
