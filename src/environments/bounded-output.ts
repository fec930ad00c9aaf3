// Keeps a command's output within a budget while it streams: the first 40% and the last 60%
// survive, the middle is counted and replaced by a notice.

const HEAD_SHARE = 0.4;

export function truncationNotice(omitted: number, total: number): string {
  const format = (value: number) => value.toLocaleString('en-US');
  return `\n\n... [OUTPUT TRUNCATED - ${format(omitted)} chars omitted out of ${format(total)} total] ...\n\n`;
}

/** Head and tail of `text` with a notice in between, or `text` itself when it fits. */
export function truncateMiddle(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const headLength = Math.floor(maxChars * HEAD_SHARE);
  const tailLength = maxChars - headLength;
  return text.slice(0, headLength) + truncationNotice(text.length - maxChars, text.length) + text.slice(-tailLength);
}

export class BoundedOutput {
  private head = '';
  private tail = '';
  private total = 0;
  private readonly headLimit: number;
  private readonly tailLimit: number;

  constructor(readonly maxChars: number) {
    this.headLimit = Math.floor(maxChars * HEAD_SHARE);
    this.tailLimit = maxChars - this.headLimit;
  }

  append(chunk: string): void {
    this.total += chunk.length;
    if (this.head.length < this.headLimit) {
      const room = this.headLimit - this.head.length;
      this.head += chunk.slice(0, room);
      chunk = chunk.slice(room);
    }
    if (!chunk) return;
    this.tail = (this.tail + chunk).slice(-this.tailLimit);
  }

  get totalChars(): number {
    return this.total;
  }

  /** The last `chars` characters seen (for heartbeats and interruption reports). */
  lastChars(chars: number): string {
    return (this.head.length + this.tail.length === this.total ? this.head + this.tail : this.tail).slice(-chars);
  }

  toString(): string {
    const kept = this.head.length + this.tail.length;
    if (kept === this.total) return this.head + this.tail;
    return this.head + truncationNotice(this.total - kept, this.total) + this.tail;
  }
}
