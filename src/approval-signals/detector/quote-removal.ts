// Quote removal for the three quoting forms bash has: unquoted backslashes, double quotes and
// ANSI-C `$'...'` strings. Escaped characters come back protected (see brace-expansion) so they
// never count as glob or brace syntax.
import { protectSpecials } from './brace-expansion';

/** `\x` becomes a literal `x`; unescaped characters are returned as they are. */
export function unescapeUnquoted(text: string): string {
  if (!text.includes('\\')) return text;
  let result = '';
  for (let index = 0; index < text.length; index++) {
    const character = text[index]!;
    if (character === '\\' && index + 1 < text.length) {
      result += protectSpecials(text[++index]!);
    } else result += character;
  }
  return result;
}

/** Inside double quotes a backslash only escapes `$`, backquote, `"`, `\` and newline. */
export function unescapeDoubleQuoted(text: string): string {
  return text.replace(/\\([$`"\\\n])/g, (_match, escaped: string) => (escaped === '\n' ? '' : escaped));
}

const SIMPLE_ESCAPES: Record<string, string> = {
  a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', "'": "'", '"': '"', '?': '?',
};

/** Decodes the body of `$'...'`. */
export function decodeAnsiC(body: string): string {
  return body.replace(/\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)/gs, (match, escape: string) => {
    const kind = escape[0]!;
    if (kind === 'x' || kind === 'u' || kind === 'U') return safeCodePoint(parseInt(escape.slice(1), 16));
    if (/[0-7]/.test(kind)) return safeCodePoint(parseInt(escape, 8));
    if (kind === 'c' && escape.length === 2) return String.fromCharCode(escape.charCodeAt(1) & 0x1f);
    return SIMPLE_ESCAPES[escape] ?? match;
  });
}

function safeCodePoint(codePoint: number): string {
  return codePoint >= 0 && codePoint <= 0x10ffff ? String.fromCodePoint(codePoint) : '';
}
