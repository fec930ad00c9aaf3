// Reading an open file with a ceiling: Node's readFile reads to the end, and a file that was
// empty when it was opened (or is growing while read) has no end the caller chose.
import type { FileHandle } from 'node:fs/promises';

const CHUNK_BYTES = 64 * 1024;

/** The file's bytes from its start, or undefined once there are more than `maxBytes`. */
export async function readUpTo(handle: FileHandle, maxBytes: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    // One byte past the limit is enough to tell that the file is too large.
    const wanted = Math.min(CHUNK_BYTES, maxBytes + 1 - total);
    const { bytesRead, buffer } = await handle.read(Buffer.allocUnsafe(wanted), 0, wanted, total);
    if (bytesRead === 0) return Buffer.concat(chunks, total);
    chunks.push(buffer.subarray(0, bytesRead));
    total += bytesRead;
    if (total > maxBytes) return undefined;
  }
}
