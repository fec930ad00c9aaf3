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
    const group = braceGroup(pattern, open);
    if (!group) continue;
    const prefix = pattern.slice(0, open);
    // As bash does: each alternative and the rest of the word expand on their own, never across
    // the join (`{a,{b}c}\{a,b}` is `a{a,b}` and `{b}c{a,b}`: `{b}c`'s brace pairs with nothing after).
    const suffixes = expand(pattern.slice(group.close + 1), limit);
    const results: string[] = [];
    // Each alternative expands only as far as the limit still allows: expanding every one in full
    // first doubled the work with each group, and 30 groups ({a,b}{a,b}...) held the worker's
    // thread, which judges every session's commands, for minutes.
    for (const alternative of group.alternatives) {
      for (const expanded of expand(alternative, limit - results.length)) {
        for (const suffix of suffixes) {
          if (results.length >= limit) return results;
          results.push(prefix + expanded + suffix);
        }
      }
    }
    return results;
  }
  return [pattern];
}

/**
 * The brace expression opening at `open`, as bash finds it: a `}` at its own level closes it only
 * once it has a top-level comma or is a sequence (`{a..c}`); before that the `}` is a literal
 * character (`{x}\{x,~}` is `x}{x` and `~`). Undefined when none closes: the `{` is literal, and
 * the next one is tried (`{b{a,b}` is `{ba` and `{bb`).
 */
function braceGroup(pattern: string, open: number): { close: number; alternatives: string[] } | undefined {
  const parts: string[] = [];
  let depth = 1;
  let start = open + 1;
  for (let index = open + 1; index < pattern.length; index++) {
    const character = pattern[index];
    if (character === '{') depth++;
    else if (character === ',' && depth === 1) {
      parts.push(pattern.slice(start, index));
      start = index + 1;
    } else if (character === '}' && depth > 1) depth--;
    else if (character === '}') {
      if (parts.length) return { close: index, alternatives: [...parts, pattern.slice(start, index)] };
      const values = sequence(pattern.slice(open + 1, index));
      if (values) return { close: index, alternatives: values };
    }
  }
  return undefined;
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
