// Seeded random shell-ish text for the fuzz test: metacharacters, quotes, keywords, unicode.

/** mulberry32: a small seeded PRNG, so a failure reproduces. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = [
  'rm', '-rf', '/', '~', '$HOME', '${IFS}', '$(', ')', '`', '"', "'", '\\', '|', '||', '&&', '&', ';', ';;', '\n', '<<', '<<<', 'EOF', '<(', '>(',
  '>', '>>', '2>&1', '{', '}', '(', ')', '[[', ']]', 'if', 'then', 'fi', 'for', 'do', 'done', 'case', 'esac', 'in', 'sudo', 'env', '-S', 'bash',
  '-c', 'eval', 'ssh', 'curl', 'sh', 'base64', '-d', 'xargs', 'find', '-exec', '{}', '+', '\\;', 'python3', 'print(1)', '*', '?', '[a]', '=',
  'ｒｍ', '\u001b[31m', '\u0000', '\u202e', '😀', 'é', ' ', ' ', '\t', '$', '#', '!', ':', '%', '^', ',', '..', '/etc', 'DROP TABLE x',
];

export function randomCommand(next: () => number): string {
  const length = 1 + Math.floor(next() * 24);
  let text = '';
  for (let index = 0; index < length; index++) {
    if (next() < 0.15) text += String.fromCharCode(Math.floor(next() * 0x3000));
    else text += PIECES[Math.floor(next() * PIECES.length)];
    if (next() < 0.5) text += ' ';
  }
  return text;
}
