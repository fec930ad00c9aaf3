// How much of a Buffer some work turns into text at once: a file tool that decodes a whole large
// file (to split it into lines) holds the worker's thread for seconds. Counted, not timed, so a
// busy machine cannot make the check fail or pass.

type ToString = (this: Buffer, encoding?: BufferEncoding, start?: number, end?: number) => string;

/** What `work` returns, and the most bytes it decoded in one `toString`. */
export async function largestDecodeDuring<T>(work: () => Promise<T> | T): Promise<{ value: T; largestDecode: number }> {
  let largestDecode = 0;
  const original = Buffer.prototype.toString as ToString;
  const spy = jest.spyOn(Buffer.prototype, 'toString').mockImplementation(function (this: Buffer, ...args: unknown[]) {
    const [encoding, start, end] = args as Parameters<ToString>;
    largestDecode = Math.max(largestDecode, Math.min(end ?? this.length, this.length) - (start ?? 0));
    return original.call(this, encoding, start, end);
  });
  try {
    return { value: await work(), largestDecode };
  } finally {
    spy.mockRestore();
  }
}
