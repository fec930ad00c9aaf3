// A foreground command's output kept on disk while it runs, so that when the worker dies a later
// attempt can tell the model what the command printed up to the kill. Bounded like BoundedOutput:
// the head and the tail survive, the middle is dropped.
import { closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { BoundedOutput, truncateMiddle } from './bounded-output';

/** What a command's log keeps (and what a retry hands the model at most). */
export const COMMAND_LOG_MAX_CHARS = 20_000;

/**
 * Written synchronously, chunk by chunk: a SIGKILLed worker has then handed everything it read
 * to the kernel, so nothing it received is lost. The file grows to twice the budget before it is
 * rewritten (head and tail, atomically by rename), so the cost of a chunk stays constant.
 */
export class CommandLog {
  private descriptor: number | undefined;
  private written = 0;
  private readonly kept: BoundedOutput;

  private constructor(
    private readonly file: string,
    private readonly maxChars: number,
  ) {
    this.kept = new BoundedOutput(maxChars);
    this.descriptor = openSync(file, 'w', 0o600);
  }

  /** A new, empty log at `file` (its folder exists); undefined when it cannot be made. */
  static create(file: string, maxChars = COMMAND_LOG_MAX_CHARS): CommandLog | undefined {
    try {
      return new CommandLog(file, maxChars);
    } catch {
      return undefined;
    }
  }

  append(text: string): void {
    if (this.descriptor === undefined || !text) return;
    this.kept.append(text);
    try {
      writeSync(this.descriptor, text);
      this.written += text.length;
      if (this.written > 2 * this.maxChars) this.compact();
    } catch {
      // A full disk costs the crash report its output, never the command its result.
      this.close();
    }
  }

  /** The command ended here, normally: nobody will ask for its log. */
  remove(): void {
    this.close();
    rmSync(this.file, { force: true });
  }

  private compact(): void {
    const temporary = `${this.file}.compact`;
    const replacement = openSync(temporary, 'w', 0o600);
    const text = this.kept.toString();
    writeSync(replacement, text);
    renameSync(temporary, this.file);
    this.close();
    this.descriptor = replacement;
    this.written = text.length;
  }

  private close(): void {
    if (this.descriptor === undefined) return;
    try {
      closeSync(this.descriptor);
    } catch {
      // Already closed.
    }
    this.descriptor = undefined;
  }
}

/** What the log at `file` holds (head and tail within `maxChars`), then removes it; undefined if none. */
export async function takeCommandLog(file: string, maxChars = COMMAND_LOG_MAX_CHARS): Promise<string | undefined> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  await rm(file, { force: true });
  return text === undefined ? undefined : truncateMiddle(text, maxChars);
}
