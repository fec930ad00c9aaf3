// Shell glob patterns as regular expressions (`*`, `?`, `[abc]`, `[!abc]`), for matching a
// globbed command name or path component against the names the rules know.

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
