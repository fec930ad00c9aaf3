// What this worker last read of a shadow index: its entries and the tree written from them, by
// the index file's own checksum (git ends the file with a hash of everything before it). An
// index no one changed since need not be listed again, nor its tree written again: an unchanged
// workspace's snapshot then runs git three times instead of six. Any change to the index, by
// this worker, another or a rollback, changes the checksum and so misses.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import path from 'node:path';
import type { ShadowRepository } from './shadow-git';

/** The index's entries (name -> `mode oid`) and, once written, its tree. */
export interface IndexContents {
  entries: Map<string, string>;
  tree?: string;
}

/** Shadow repositories remembered at once: a large workspace's entries take megabytes. */
const REMEMBERED = 8;
/** The trailing hash, SHA-1 or SHA-256: the last 32 bytes hold it either way. */
const TRAILER_BYTES = 32;

const remembered = new Map<string, { identity: string; contents: IndexContents }>();

/** The index's size and trailing hash; undefined when it cannot be read or carries no hash (index.skipHash). */
export function indexIdentity(repository: ShadowRepository): string | undefined {
  let descriptor: number | undefined;
  try {
    descriptor = openSync(path.join(repository.gitDirectory, 'index'), 'r');
    const { size } = fstatSync(descriptor);
    if (size < TRAILER_BYTES) return undefined;
    const trailer = Buffer.alloc(TRAILER_BYTES);
    if (readSync(descriptor, trailer, 0, TRAILER_BYTES, size - TRAILER_BYTES) !== TRAILER_BYTES) return undefined;
    // With index.skipHash git writes zeros: no identity at all.
    if (trailer.subarray(TRAILER_BYTES - 20).every((byte) => byte === 0)) return undefined;
    return `${size}:${trailer.toString('hex')}`;
  } catch {
    return undefined;
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
}

/** What was remembered of the index as it is now, if anything. */
export function recallIndex(repository: ShadowRepository, identity = indexIdentity(repository)): IndexContents | undefined {
  const memory = remembered.get(repository.gitDirectory);
  return memory && identity !== undefined && memory.identity === identity ? memory.contents : undefined;
}

/** Remembers the index as it is now (its entries read since its last change); forgets it when unknown. */
export function rememberIndex(repository: ShadowRepository, contents: IndexContents | undefined): void {
  remembered.delete(repository.gitDirectory);
  const identity = contents && indexIdentity(repository);
  if (!contents || identity === undefined) return;
  remembered.set(repository.gitDirectory, { identity, contents });
  if (remembered.size > REMEMBERED) remembered.delete(remembered.keys().next().value as string);
}
