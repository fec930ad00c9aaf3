// Reading a file with a ceiling: Node's readFile (and ssh2's) reads to the end, and a file that
// was empty when it was opened (or is growing while read, or a device) has no end the caller chose.
import type { FileHandle } from 'node:fs/promises';

/** Reads up to `length` bytes at `position` into `buffer`; resolves with how many it read (0: the end). */
export type ReadAt = (buffer: Buffer, length: number, position: number) => Promise<number>;

const CHUNK_BYTES = 64 * 1024;

/** The file's bytes from its start, or undefined once there are more than `maxBytes`. */
export async function readUpTo(source: FileHandle | ReadAt, maxBytes: number, chunkBytes = CHUNK_BYTES): Promise<Buffer | undefined> {
  const read: ReadAt = typeof source === 'function' ? source : async (buffer, length, position) => (await source.read(buffer, 0, length, position)).bytesRead;
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    // One byte past the limit is enough to tell that the file is too large.
    const wanted = Math.min(chunkBytes, maxBytes + 1 - total);
    const buffer = Buffer.allocUnsafe(wanted);
    const bytesRead = await read(buffer, wanted, total);
    if (bytesRead === 0) return Buffer.concat(chunks, total);
    chunks.push(buffer.subarray(0, bytesRead));
    total += bytesRead;
    if (total > maxBytes) return undefined;
  }
}
