// How the model's text sits among the lines the runtime adds to an approval display (where a
// command runs, what a write changes, a refused decision): a model's text of several lines has
// every line marked, and a runtime line never is, so no line the model wrote can pass for one
// the runtime added. Pure: the workflow and the CLI's printers use it too.
import { visibleText } from './visible-text';

/** What starts every line of a model's text of several lines in what an approver reads. */
export const QUOTED_LINE_MARK = '│ ';

/** `text` as an approver reads it among runtime lines: one line as it is; several, each marked. */
export function quotedText(text: string): string {
  if (!text.includes('\n')) return text;
  return text
    .split('\n')
    .map((line) => `${QUOTED_LINE_MARK}${line}`)
    .join('\n');
}

/** `text` visible-safe on the one line it is shown on: its line breaks shown as `\n`. */
export function oneLine(text: string): string {
  return visibleText(text).replace(/\n/g, '\\n');
}
