// The value of `${name<operation>}` when `name`'s value is known: the gate must judge the word bash
// makes, and `x=build; rm -rf ${x:+/}` is `rm -rf /`, not `rm -rf build`. An operation it cannot
// evaluate exactly (a word with quotes or expansions, an indirection, a transformation) gives
// undefined: the word is then unknown, as a variable of unknown value is.
import { globTester } from './glob';

/** Longer values are not pattern-matched: each try costs the value's length. */
const MAX_MATCHED_CHARS = 1024;
/** Replacement tries every start and end: its cost is the square of the value's length. */
const MAX_REPLACED_CHARS = 128;

/**
 * The expansion's value.
 * @param text the expansion as written, `${...}`
 * @param name the parameter's name
 * @param value its known value; undefined when unknown (or unset)
 */
export function expandParameter(text: string, name: string, value: string | undefined): string | undefined {
  if (!text.startsWith('${')) return value; // $name
  if (value === undefined || !text.endsWith('}')) return undefined;
  const inner = text.slice(2, -1);
  if (inner === `#${name}`) return String([...value].length);
  if (!inner.startsWith(name)) return undefined; // ${!name}, ${!prefix*} and the like
  return applyOperation(inner.slice(name.length), value);
}

function applyOperation(operation: string, value: string): string | undefined {
  if (operation === '') return value;
  const word = /^(:?)([-=+?])(.*)$/s.exec(operation);
  if (word) {
    const [, colon, operator, argument] = word as unknown as [string, string, string, string];
    const present = colon ? value !== '' : true; // known values are set; `:` also asks for non-empty
    if (operator === '+') return present ? plainWord(argument) : '';
    return present ? value : operator === '?' ? undefined : plainWord(argument);
  }
  const substring = /^:\s*(-?\d+)(?::\s*(-?\d+))?$/.exec(operation);
  if (substring) return substringOf(value, Number(substring[1]), substring[2] === undefined ? undefined : Number(substring[2]));
  const removal = /^(##?|%%?)(.*)$/s.exec(operation);
  if (removal) return removeMatch(value, removal[1]!, removal[2]!);
  const replacement = /^\/([/#%]?)(.*)$/s.exec(operation);
  if (replacement) return replaceMatch(value, replacement[1]!, replacement[2]!);
  if (operation === '^^') return value.toUpperCase();
  if (operation === ',,') return value.toLowerCase();
  if (operation === '^') return value.charAt(0).toUpperCase() + value.slice(1);
  if (operation === ',') return value.charAt(0).toLowerCase() + value.slice(1);
  return undefined;
}

/** A word argument with nothing left to expand or unquote; undefined otherwise. */
function plainWord(text: string): string | undefined {
  return /[$`"'\\]/.test(text) ? undefined : text;
}

function substringOf(value: string, offset: number, length: number | undefined): string | undefined {
  const characters = [...value];
  const start = offset < 0 ? Math.max(0, characters.length + offset) : offset;
  if (length === undefined) return characters.slice(start).join('');
  const end = length < 0 ? characters.length + length : start + length;
  return end < start ? undefined : characters.slice(start, end).join(''); // bash: "substring expression < 0"
}

function removeMatch(value: string, operator: string, pattern: string): string | undefined {
  const matcher = globTester(pattern);
  if (!matcher || value.length > MAX_MATCHED_CHARS) return undefined;
  const longest = operator.length === 2;
  const fromStart = operator[0] === '#';
  for (let step = 0; step <= value.length; step++) {
    const cut = longest ? value.length - step : step;
    if (fromStart ? matcher(value.slice(0, cut)) : matcher(value.slice(value.length - cut))) {
      return fromStart ? value.slice(cut) : value.slice(0, value.length - cut);
    }
  }
  return value;
}

/** `/p/r` (first), `//p/r` (every), `/#p/r` (at the start), `/%p/r` (at the end); longest match. */
function replaceMatch(value: string, anchor: string, body: string): string | undefined {
  const slash = body.indexOf('/');
  const pattern = slash === -1 ? body : body.slice(0, slash);
  const replacement = slash === -1 ? '' : plainWord(body.slice(slash + 1));
  const matcher = globTester(pattern);
  if (!matcher || replacement === undefined || pattern === '' || value.length > MAX_REPLACED_CHARS) return undefined;
  let result = '';
  let index = 0;
  while (index <= value.length) {
    const mayStart = anchor !== '#' || index === 0;
    let end = -1;
    if (mayStart) {
      for (let candidate = value.length; candidate > index && end === -1; candidate--) {
        if (anchor === '%' && candidate !== value.length) break;
        if (matcher(value.slice(index, candidate))) end = candidate;
      }
    }
    if (end !== -1) {
      result += replacement;
      index = end;
      if (anchor !== '/') return result + value.slice(index);
      continue;
    }
    if (index < value.length) result += value[index];
    index++;
  }
  return result;
}
