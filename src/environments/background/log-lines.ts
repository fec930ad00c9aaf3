// Line windows over a process's output, with the same meaning as the file-backed processes'
// `tail`/`head` pipeline: offset 0 means the last `limit` lines, offset N > 0 starts at line N
// (1-based). Lines are split on `\n`; a last line without one still counts.
import { createReadStream } from 'node:fs';

export interface LineWindow {
  output: string;
  totalLines: number;
}

export function selectLines(text: string, offset: number, limit: number): LineWindow {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const selected = offset > 0 ? lines.slice(offset - 1, offset - 1 + limit) : lines.slice(-limit);
  return { output: selected.join('\n'), totalLines: lines.length };
}

/** The same window, streamed from a file so only the selected lines are held in memory. */
export async function selectLinesFromFile(file: string, offset: number, limit: number): Promise<LineWindow> {
  const stream = createReadStream(file, { encoding: 'utf8' });
  const opened = await new Promise<boolean>((resolve) => {
    stream.once('open', () => resolve(true));
    stream.once('error', () => resolve(false));
  });
  if (!opened) return { output: '', totalLines: 0 };
  const selected: string[] = [];
  let totalLines = 0;
  const take = (line: string) => {
    totalLines += 1;
    if (offset > 0) {
      if (totalLines >= offset && selected.length < limit) selected.push(line);
    } else {
      selected.push(line);
      if (selected.length > limit) selected.shift();
    }
  };
  let partial = '';
  for await (const chunk of stream) {
    const lines = (partial + (chunk as string)).split('\n');
    partial = lines.pop() ?? '';
    lines.forEach(take);
  }
  if (partial) take(partial);
  return { output: selected.join('\n'), totalLines };
}
