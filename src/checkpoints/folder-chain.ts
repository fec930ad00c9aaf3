// Files of the work tree named through their folders' descriptors (environments/folder-beneath.ts),
// for git's names, which are bytes: a folder a running script swaps for a link leads nowhere
// rather than out of the workspace.
import { throughFolderChain } from '../environments/folder-beneath';

/**
 * Calls `use` with a name for the git name `name` (latin1 string) through the descriptor of its
 * folder, every folder below the work tree opened without following a link; undefined when one
 * is not a folder. `makeMissing`: folders not there are made on the way. `use` also gets the
 * folder's own name, for a file made beside it.
 */
export function inFolderBeneath<T>(workTree: string, name: string, use: (file: Buffer, folder: Buffer) => T, makeMissing = false): T | undefined {
  const parts = name.split('/').map((part) => Buffer.from(part, 'latin1'));
  const last = parts.pop() ?? Buffer.alloc(0);
  return throughFolderChain(workTree, parts, (folder) => use(Buffer.concat([folder, Buffer.from('/'), last]), folder), makeMissing);
}
