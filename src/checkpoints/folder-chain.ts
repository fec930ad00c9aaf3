// Files of the work tree named through their folders' descriptors: each folder below the work
// tree opened inside the one before it without following a link, so a folder a running script
// swaps for a link leads nowhere rather than out of the workspace.
import { closeSync, constants, openSync } from 'node:fs';

const FOLDER_NO_FOLLOW = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * Calls `use` with a name for the git name `name` (latin1 string) naming it through the descriptor
 * of its folder, every folder below the work tree opened without following a link (as
 * environments/folder-beneath.ts does for text paths; git names are bytes); undefined when one is not a folder.
 */
export function inFolderBeneath<T>(workTree: string, name: string, use: (file: Buffer) => T): T | undefined {
  const parts = name.split('/');
  const last = parts.pop()!;
  const opened: number[] = [];
  try {
    opened.push(openSync(workTree, FOLDER_NO_FOLLOW & ~constants.O_NOFOLLOW));
    for (const part of parts) {
      const below = Buffer.from(`/proc/self/fd/${opened.at(-1)}/${part}`, 'latin1');
      try {
        opened.push(openSync(below, FOLDER_NO_FOLLOW));
      } catch {
        return undefined;
      }
    }
    return use(Buffer.from(`/proc/self/fd/${opened.at(-1)}/${last}`, 'latin1'));
  } finally {
    for (const descriptor of opened) closeSync(descriptor);
  }
}
