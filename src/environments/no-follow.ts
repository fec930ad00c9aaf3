// Opening what a walk found without being led elsewhere: a folder or file the model's own
// process swaps for a symbolic link between the listing and the open is not followed, and what
// was opened is named by the kernel (/proc/self/fd), not by the path that was asked for.
import { constants, type Dirent } from 'node:fs';
import { open, opendir, readdir, readlink, realpath, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { readUpTo } from './bounded-read';

/** Never follows a final link; never blocks on a FIFO put where a file was. */
const NO_FOLLOW = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** `candidate` is `folder` or lies inside it (both real, absolute). */
export function liesWithin(candidate: string, folder: string): boolean {
  return candidate === folder || candidate.startsWith(folder === '/' ? '/' : `${folder}/`);
}

/**
 * The entries of `directory` (at most `limit`, in the order the file system gives them), opened
 * without following a link, if it really lies within `within`.
 */
export async function listWithin(directory: string, within: string, limit = Number.POSITIVE_INFINITY): Promise<Dirent[] | null> {
  const handle = await open(directory, NO_FOLLOW | constants.O_DIRECTORY).catch(() => null);
  if (!handle) return null;
  try {
    const named = await procName(handle);
    const real = named ?? (await realpath(directory).catch(() => null));
    if (real === null || !liesWithin(real, within)) return null;
    // Through its /proc name the very folder that was opened is read (elsewhere: by its real path).
    if (limit === Number.POSITIVE_INFINITY) return await readdir(named ? procPath(handle) : real, { withFileTypes: true });
    // A folder of millions of names is read only as far as the caller wants.
    const entries: Dirent[] = [];
    if (limit <= 0) return entries;
    for await (const entry of await opendir(named ? procPath(handle) : real)) {
      entries.push(entry);
      if (entries.length >= limit) break;
    }
    return entries;
  } catch {
    return null;
  } finally {
    await handle.close();
  }
}

/**
 * `file`'s content and real path, if it is still a plain file no larger than `maxBytes` whose real
 * path lies within `within`; null otherwise (a link, a folder, a device, moved elsewhere).
 */
export async function readWithin(file: string, within: string, maxBytes: number): Promise<{ content: Buffer; realPath: string } | null> {
  const handle = await open(file, NO_FOLLOW).catch(() => null);
  if (!handle) return null;
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.size > maxBytes) return null;
    const realPath = await openedPath(handle, file);
    if (realPath === null || !liesWithin(realPath, within)) return null;
    const content = await readUpTo(handle, maxBytes);
    return content ? { content, realPath } : null;
  } catch {
    return null;
  } finally {
    await handle.close();
  }
}

function procPath(handle: FileHandle): string {
  return `/proc/self/fd/${handle.fd}`;
}

async function procName(handle: FileHandle): Promise<string | null> {
  return readlink(procPath(handle)).catch(() => null);
}

/** The opened file's real path as the kernel names it; without /proc, the path's real path. */
async function openedPath(handle: FileHandle, asked: string): Promise<string | null> {
  return (await procName(handle)) ?? realpath(path.resolve(asked)).catch(() => null);
}
