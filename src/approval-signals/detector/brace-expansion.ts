// Bash brace expansion (`{rm,-rf,/}` becomes three words, `file{,.bak}` two) on a pattern where
// quoted characters were already replaced by placeholders, so only unquoted braces expand.

/** Placeholders for quoted or escaped characters that must not act as syntax. */
export const QUOTED: Readonly<Record<string, string>> = { '{': '\uE000', '}': '\uE001', ',': '\uE002', '*': '\uE003', '?': '\uE004', '[': '\uE005' };
const UNQUOTE = new Map<string, string>(Object.entries(QUOTED).map(([plain, placeholder]): [string, string] => [placeholder, plain]));

export function protectSpecials(text: string): string {
  return text.replace(/[{},*?[]/g, (character) => QUOTED[character] ?? character);
}

export function restoreSpecials(pattern: string): string {
  return pattern.replace(/[\uE000-\uE005]/g, (character) => UNQUOTE.get(character) ?? character);
}

/**
 * Every word the pattern expands to, or `undefined` when it holds no brace expression. Past
 * `limit` words only the first are kept and `onCut` is called: a word left out could be `/`.
 */
export function expandBraces(pattern: string, limit = 64, onCut?: () => void): string[] | undefined {
  if (!pattern.includes('{')) return undefined;
  const words = expand(pattern, limit + 1);
  if (words.length > limit) {
    onCut?.();
    words.length = limit;
  }
  return words.length === 1 && words[0] === pattern ? undefined : words;
}

function expand(pattern: string, limit: number): string[] {
  for (let open = pattern.indexOf('{'); open !== -1; open = pattern.indexOf('{', open + 1)) {
    if (pattern[open - 1] === '$') continue;
    const close = matchingBrace(pattern, open);
    if (close === -1) return [pattern];
    const prefix = pattern.slice(0, open);
    const suffix = pattern.slice(close + 1);
    const alternatives = alternativesOf(pattern.slice(open + 1, close));
    if (!alternatives) continue;
    const results: string[] = [];
    // Each alternative expands only as far as the limit still allows: expanding every one in full
    // first doubled the work with each group, and 30 groups ({a,b}{a,b}...) held the worker's
    // thread, which judges every session's commands, for minutes.
    for (const alternative of alternatives) {
      if (results.length >= limit) break;
      results.push(...expand(prefix + alternative + suffix, limit - results.length));
    }
    return results;
  }
  return [pattern];
}

function matchingBrace(pattern: string, open: number): number {
  let depth = 0;
  for (let index = open; index < pattern.length; index++) {
    if (pattern[index] === '{') depth++;
    else if (pattern[index] === '}' && --depth === 0) return index;
  }
  return -1;
}

/** Comma alternatives at the top level, or a `a..b` sequence; `undefined` for `{x}`. */
function alternativesOf(body: string): string[] | undefined {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let index = 0; index < body.length; index++) {
    const character = body[index];
    if (character === '{') depth++;
    else if (character === '}') depth--;
    else if (character === ',' && depth === 0) {
      parts.push(body.slice(start, index));
      start = index + 1;
    }
  }
  if (parts.length) return [...parts, body.slice(start)];
  return sequence(body);
}

function sequence(body: string): string[] | undefined {
  const numeric = /^(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?$/.exec(body);
  const letters = /^([a-zA-Z])\.\.([a-zA-Z])$/.exec(body);
  if (!numeric && !letters) return undefined;
  const from = numeric ? Number(numeric[1]) : letters![1]!.charCodeAt(0);
  const to = numeric ? Number(numeric[2]) : letters![2]!.charCodeAt(0);
  const step = Math.max(1, Math.abs(Number(numeric?.[3] ?? 1)));
  const values: string[] = [];
  for (let value = from; from <= to ? value <= to : value >= to; value += from <= to ? step : -step) {
    values.push(numeric ? String(value) : String.fromCharCode(value));
    if (values.length >= 64) break;
  }
  return values;
}
