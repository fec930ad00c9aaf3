// Text shown to a human who decides (prompts, `pending`, the run printer, webhooks, the Temporal
// UI) is written by the model, so it must not be able to move the cursor, erase a line, reverse
// its letters or hide characters: such characters are shown as escapes instead. Line breaks stay.
// Pure: the workflow imports it for its memo and details line.

/**
 * C0 controls but the line feed, DEL and C1 controls; then characters that draw nothing or reorder
 * what follows: soft hyphen, Arabic letter mark, Mongolian vowel separator, zero-width and
 * direction marks, line and paragraph separators, bidi embeddings, overrides and isolates,
 * invisible operators, the byte-order mark, interlinear annotations, and tag characters.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const HIDDEN = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]|\udb40[\udc00-\udc7f]/g;

const NAMED: Record<string, string> = { '\t': '\\t', '\r': '\\r', '\b': '\\b', '\f': '\\f', '\v': '\\v', '\u0000': '\\0' };

/** `text` with every character that could hide or forge what is shown replaced by a visible escape (`\r`, `\x1b`, `\u202e`). */
export function visibleText(text: string): string {
  const shown = text.replace(HIDDEN, (character) => NAMED[character] ?? escapeOf(character));
  return ONLY_ASCII.test(shown) ? shown : shown.replace(WORD, escapeLookAlikes);
}

const ONLY_ASCII = /^[\p{ASCII}]*$/u;
const WORD = /[\p{L}\p{M}\p{N}_]+/gu;
const LATIN = /\p{Script=Latin}/u;
/** A letter of a script other than Latin, which may be drawn like a Latin one (Cyrillic і, Greek ο). */
const OTHER_SCRIPT_LETTER = /(?![\p{Script=Latin}\p{Script=Common}\p{Script=Inherited}])\p{L}/gu;

/**
 * A word of Latin letters with a letter of another script or a compatibility form among them
 * (`bu\u0456ld`, `s\uff52c`) reads as a word it is not, a folder's name as another's: those
 * letters are shown as escapes. Words of one other script (`файл`) stay as they are.
 */
function escapeLookAlikes(word: string): string {
  if (!LATIN.test(word) || ONLY_ASCII.test(word)) return word;
  const foreign = word.replace(OTHER_SCRIPT_LETTER, escapeOf);
  return [...foreign].map((character) => (character.charCodeAt(0) > 0x7f && character.normalize('NFKC') !== character ? escapeOf(character) : character)).join('');
}

/**
 * Every string in `value` (an event, a record) made visible-safe, tabs kept: for what a terminal
 * shows as it goes (tool summaries, sub-agents' tasks and answers), where a model's escape could
 * set the clipboard, retitle the window or draw over an approval prompt already on screen.
 */
export function visibleStrings<T>(value: T): T {
  if (typeof value === 'string') return value.split('\t').map(visibleText).join('\t') as T;
  if (Array.isArray(value)) return value.map((item: unknown) => visibleStrings(item)) as T;
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, visibleStrings(item)])) as T;
  return value;
}

function escapeOf(character: string): string {
  const code = character.codePointAt(0) ?? 0;
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
  if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, '0')}`;
  return `\\u{${code.toString(16)}}`;
}

/** The fields of an approval a human reads, made visible-safe; the rest (keys, ids) as they are. */
export function visibleApproval<T extends { command: string; description: string; refusedDecision?: string }>(approval: T): T {
  return {
    ...approval,
    command: visibleText(approval.command),
    description: visibleText(approval.description),
    ...(approval.refusedDecision === undefined ? {} : { refusedDecision: visibleText(approval.refusedDecision) }),
  };
}

/**
 * The first line of `text` for a one-line display (the UI's details line, a CLI confirmation),
 * saying how many lines follow: a harmless first line must not stand for a command that goes on.
 */
export function firstLineOf(text: string): string {
  const lines = text.split('\n');
  const more = lines.length - 1;
  return `${visibleText(lines[0] ?? '')}${more ? ` … (+${more} more line${more === 1 ? '' : 's'})` : ''}`;
}
