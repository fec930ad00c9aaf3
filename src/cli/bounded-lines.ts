// Lines of a stream, as they arrive, with a bounded length: a longer line is cut (and marked so)
// and the rest of it is skipped up to its newline, so one huge line cannot exhaust memory.
import { StringDecoder } from 'node:string_decoder';

export interface BoundedLine {
  text: string;
  /** The line was longer than the bound; `text` is its start. */
  cut: boolean;
}

export async function* readBoundedLines(stream: AsyncIterable<Buffer | string>, maxLength: number): AsyncGenerator<BoundedLine> {
  const decoder = new StringDecoder('utf8');
  let current = '';
  let cut = false;
  const take = (piece: string) => {
    if (cut) return;
    const room = maxLength - current.length;
    if (piece.length > room) {
      current += piece.slice(0, room);
      cut = true;
    } else current += piece;
  };
  for await (const chunk of stream) {
    const text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
    let start = 0;
    for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', start)) {
      take(text.slice(start, newline));
      yield { text: current, cut };
      current = '';
      cut = false;
      start = newline + 1;
    }
    take(text.slice(start));
  }
  take(decoder.end());
  if (current !== '' || cut) yield { text: current, cut };
}
