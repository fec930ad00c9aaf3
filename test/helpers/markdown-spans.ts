// How a CommonMark renderer (the Temporal UI's details line) splits one line into code spans and
// the rest, where markup is read: a backtick run opens a span that the next run of exactly the same
// length closes, a run with no such partner is plain text, and outside spans `\`` is a literal
// backtick. Enough to tell which of a line's text could be read as markup.

export interface SplitLine {
  /** The text of each code span, as the renderer shows it. */
  code: string[];
  /** Everything outside code spans, where emphasis, links and headings are read. */
  outside: string;
}

export function splitCodeSpans(line: string): SplitLine {
  const code: string[] = [];
  let outside = '';
  let index = 0;
  while (index < line.length) {
    const char = line[index]!;
    if (char === '\\' && index + 1 < line.length) {
      outside += line.slice(index, index + 2);
      index += 2;
      continue;
    }
    if (char !== '`') {
      outside += char;
      index += 1;
      continue;
    }
    const opening = runAt(line, index);
    const close = closingRun(line, index + opening, opening);
    if (close === -1) {
      outside += '`'.repeat(opening);
      index += opening;
      continue;
    }
    let content = line.slice(index + opening, close);
    if (content.length >= 2 && content.startsWith(' ') && content.endsWith(' ') && content.trim() !== '') content = content.slice(1, -1);
    code.push(content);
    index = close + opening;
  }
  return { code, outside };
}

function runAt(line: string, index: number): number {
  let end = index;
  while (line[end] === '`') end += 1;
  return end - index;
}

/** Where the next run of exactly `length` backticks after `from` starts, or -1. */
function closingRun(line: string, from: number, length: number): number {
  for (let index = from; index < line.length; ) {
    if (line[index] !== '`') {
      index += 1;
      continue;
    }
    const run = runAt(line, index);
    if (run === length) return index;
    index += run;
  }
  return -1;
}
