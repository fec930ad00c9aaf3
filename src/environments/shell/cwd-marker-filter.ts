// Takes the cwd report off the end of a command's streamed output: text passes through as it
// arrives, except what could be the start of the marker, which waits for the next chunk.

/**
 * What is kept after the marker: its cwd line (a path; PATH_MAX is 4096). A command that read
 * the marker off its shell's command line can print it and stream on, and the rest is dropped
 * instead of growing one string until the worker dies of it.
 */
const MAX_AFTER_MARKER_CHARS = 8192;

export class CwdMarkerFilter {
  private pending = '';
  private after: string | undefined;
  private readonly needle: string;

  /**
   * @param onOwnLine the wrapper prints a newline before the marker (so it never joins the last
   * output line); without it (a TTY would turn that newline into \r\n) the marker alone is matched.
   */
  constructor(
    readonly marker: string,
    onOwnLine = true,
  ) {
    this.needle = onOwnLine ? `\n${marker}` : marker;
  }

  /** True once the marker line has arrived complete (the command is over). */
  get found(): boolean {
    return this.after !== undefined && this.after.includes('\n');
  }

  /** Feeds a chunk; returns the part that is certainly output. */
  push(chunk: string): string {
    if (this.after !== undefined) {
      if (!this.found && this.after.length < MAX_AFTER_MARKER_CHARS) this.after = (this.after + chunk).slice(0, MAX_AFTER_MARKER_CHARS);
      return '';
    }
    this.pending += chunk;
    const found = this.pending.indexOf(this.needle);
    if (found >= 0) {
      const text = this.pending.slice(0, found);
      this.after = this.pending.slice(found + this.needle.length, found + this.needle.length + MAX_AFTER_MARKER_CHARS);
      this.pending = '';
      return text;
    }
    const keep = this.partialMatchLength();
    const text = this.pending.slice(0, this.pending.length - keep);
    this.pending = this.pending.slice(this.pending.length - keep);
    return text;
  }

  /** The rest of the output once the stream has ended. */
  end(): string {
    const text = this.pending;
    this.pending = '';
    return text;
  }

  /** The directory the command ended in, when it got as far as reporting it. */
  get cwd(): string | undefined {
    if (this.after === undefined) return undefined;
    const line = (this.after.split('\n')[0] ?? '').replace(/\r$/, '');
    return line.startsWith('/') ? line : undefined;
  }

  /** Length of the longest suffix of `pending` that is a prefix of the marker. */
  private partialMatchLength(): number {
    const max = Math.min(this.pending.length, this.needle.length - 1);
    for (let length = max; length > 0; length -= 1) {
      if (this.needle.startsWith(this.pending.slice(-length))) return length;
    }
    return 0;
  }
}
