// Model-written text in what the Temporal UI renders as Markdown (a session's details line, a
// sub-agent's summary): a tool name, a plan item or a command must read as quoted text there, not
// as the runtime's bold "Awaiting approval", a heading or a link for an operator to follow. Pure:
// the workflow imports it.
import { oneLine } from './shown-call';

/**
 * `text` on one visible line inside a Markdown code span, where nothing is markup: the fence is
 * longer than any run of backticks in it (CommonMark closes a span only on a run of equal length),
 * and padded where the text would otherwise lose or merge an edge.
 */
export function markdownCode(text: string): string {
  const shown = oneLine(text);
  if (shown === '') return '` `';
  let longestRun = 0;
  for (const run of shown.match(/`+/g) ?? []) longestRun = Math.max(longestRun, run.length);
  const fence = '`'.repeat(longestRun + 1);
  // CommonMark strips one space at each end when both ends have one (and it is not all spaces):
  // padded, the text keeps its own; a backtick at an edge would join the fence.
  const padded = shown.startsWith('`') || shown.endsWith('`') || (shown.startsWith(' ') && shown.endsWith(' ') && shown.trim() !== '');
  const pad = padded ? ' ' : '';
  return `${fence}${pad}${shown}${pad}${fence}`;
}

/**
 * `markdownCode` of as much of `text` as fits in `maxBytes` of UTF-8 (a cut text ends in `…`):
 * cutting the span itself would leave its fence open, and the text after it read as markup.
 */
export function markdownCodeWithin(text: string, maxBytes: number): string {
  const whole = markdownCode(text);
  if (utf8Length(whole) <= maxBytes) return whole;
  const characters = [...text];
  let low = 0;
  let high = characters.length;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (utf8Length(markdownCode(`${characters.slice(0, middle).join('')}…`)) <= maxBytes) low = middle;
    else high = middle - 1;
  }
  return markdownCode(`${characters.slice(0, low).join('')}…`);
}

/** Bytes of `text` in UTF-8 (Buffer is not there in a workflow). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (const character of text) {
    const code = character.codePointAt(0) ?? 0;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return bytes;
}
