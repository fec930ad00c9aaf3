// Shell glob patterns as regular expressions (`*`, `?`, `[abc]`, `[!abc]`), for matching a
// globbed command name or path component against the names the rules know.
import { RE2JS } from 're2js';

export function globToRegExp(glob: string): RegExp {
  let source = '';
  for (let index = 0; index < glob.length; index++) {
    const character = glob[index]!;
    if (character === '*') source += '.*';
    else if (character === '?') source += '.';
    else if (character === '[') {
      const close = glob.indexOf(']', index + 2);
      if (close === -1) source += '\\[';
      else {
        const body = glob.slice(index + 1, close).replace(/^!/, '^').replace(/[\\\]]/g, '\\$&');
        source += `[${body}]`;
        index = close;
      }
    } else source += character.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
  }
  try {
    return new RegExp(`^${source}$`);
  } catch {
    return /^$/;
  }
}

export function isGlobPattern(text: string): boolean {
  return /[*?]|\[[^\]]+\]/.test(text);
}

/**
 * A glob of literal characters, `*`, `?` and `[...]` as a test of whole strings, on RE2 (linear,
 * for patterns a model writes); undefined if quoted or expanded.
 */
export function globTester(glob: string): ((text: string) => boolean) | undefined {
  if (/[$`"'\\]/.test(glob)) return undefined;
  let source = '';
  for (let index = 0; index < glob.length; index++) {
    const character = glob[index]!;
    if (character === '*') source += '.*';
    else if (character === '?') source += '.';
    else if (character === '[' && glob.indexOf(']', index + 2) !== -1) {
      const close = glob.indexOf(']', index + 2);
      const body = glob.slice(index + 1, close);
      const negated = body.startsWith('!') || body.startsWith('^');
      const members = [...(negated ? body.slice(1) : body)].map((member) => (member === '-' ? '-' : RE2JS.quote(member))).join('');
      source += `[${negated ? '^' : ''}${members}]`;
      index = close;
    } else source += RE2JS.quote(character);
  }
  try {
    const compiled = RE2JS.compile(`^(?:${source})$`, RE2JS.DOTALL);
    return (text) => compiled.matcher(text).matches();
  } catch {
    return undefined;
  }
}
