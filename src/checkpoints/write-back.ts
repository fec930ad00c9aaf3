// Writes files a checkpoint holds back into the work tree. git would write them by path, and a
// script of the model's still running could swap a folder on that path for a link meanwhile (to
// the home): git would then replace the user's files there. Here each file is made beside its
// name in its folder, reached through folders opened one inside another without following a link
// (made when missing), then renamed over the name: a link in its place is replaced, never followed.
import { closeSync, constants, openSync, renameSync, symlinkSync, unlinkSync, writeSync } from 'node:fs';
import { inFolderBeneath } from './folder-chain';

type Git = (args: string[], input?: Buffer) => Promise<Buffer>;

interface TreeEntry {
  mode: string;
  oid: string;
  size: number;
  name: string;
}

/** Blob bytes brought from git at once, at most (a checkpoint's files may be large, many of them). */
const BATCH_BYTES = 32 * 1024 * 1024;
const SYMLINK_MODE = '120000';

let made = 0;

/**
 * Writes `names` (git names, latin1 strings) as the tree `tree` holds them. Returns those written
 * and those not: a folder on the way that is a link or a file now, or a folder holding the name.
 */
export async function writeBackWithin(workTree: string, tree: string, names: readonly string[], git: Git): Promise<{ written: string[]; skipped: string[] }> {
  const wanted = new Set(names);
  const entries = parseTree(await git(['ls-tree', '-r', '-l', '-z', tree])).filter((entry) => wanted.has(entry.name));
  const written: TreeEntry[] = [];
  for (const batch of batchesOf(entries)) {
    const blobs = parseBatch(await git(['cat-file', '--batch'], Buffer.from(batch.map((entry) => `${entry.oid}\n`).join(''))));
    for (const entry of batch) {
      const bytes = blobs.get(entry.oid);
      if (bytes && writeEntry(workTree, entry, bytes)) written.push(entry);
    }
  }
  // The shadow index is left as the snapshot before the rollback made it: a file written back is
  // a new inode, so the next snapshot hashes it again (through the no-follow check). Writing the
  // index now would have git re-read, by path, entries it took for racily clean.
  const done = new Set(written.map((entry) => entry.name));
  return { written: names.filter((name) => done.has(name)), skipped: names.filter((name) => !done.has(name)) };
}

function writeEntry(workTree: string, entry: TreeEntry, bytes: Buffer): boolean {
  return replaceWithin(workTree, entry.name, (temporary) => {
    if (entry.mode === SYMLINK_MODE) symlinkSync(bytes, temporary);
    else writeNewFile(temporary, bytes, entry.mode === '100755' ? 0o777 : 0o666);
  });
}

/**
 * Puts a file `make` creates (beside the name, never through a link) in place of the work tree's
 * `name` (a git name), its folders made when missing; false when a folder on the way is a link or
 * a file, or a folder holds the name.
 */
export function replaceWithin(workTree: string, name: string, make: (temporary: Buffer) => void): boolean {
  const written = inFolderBeneath(
    workTree,
    name,
    (file, folder) => {
      const temporary = Buffer.concat([folder, Buffer.from(`/.hermes-rollback-${process.pid}-${made++}`)]);
      try {
        make(temporary);
        renameSync(temporary, file);
        return true;
      } catch {
        // A folder holds the name (one a running script made), or the disk is full: what is there stays.
        try {
          unlinkSync(temporary);
        } catch {
          // Never made, or a folder a script put under that name: left to it.
        }
        return false;
      }
    },
    true,
  );
  return written === true;
}

/** O_EXCL and O_NOFOLLOW: nothing planted under the name is written through. The umask applies, as for git. */
export function writeNewFile(file: Buffer, bytes: Buffer, mode: number): void {
  const descriptor = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
  try {
    for (let offset = 0; offset < bytes.length; ) offset += writeSync(descriptor, bytes, offset);
  } finally {
    closeSync(descriptor);
  }
}

/** `ls-tree -r -l -z`: `<mode> <type> <oid> <size>\t<name>`; files and links only. */
function parseTree(output: Buffer): TreeEntry[] {
  return output
    .toString('latin1')
    .split('\0')
    .flatMap((line) => {
      const tab = line.indexOf('\t');
      const [mode = '', type, oid = '', size = ''] = line.slice(0, tab).split(' ').filter(Boolean);
      return tab > 0 && type === 'blob' ? [{ mode, oid, size: Number(size), name: line.slice(tab + 1) }] : [];
    });
}

function batchesOf(entries: readonly TreeEntry[]): TreeEntry[][] {
  const batches: TreeEntry[][] = [];
  let bytes = Infinity;
  for (const entry of entries) {
    if (bytes + entry.size > BATCH_BYTES) {
      batches.push([]);
      bytes = 0;
    }
    batches.at(-1)!.push(entry);
    bytes += entry.size;
  }
  return batches;
}

/** `cat-file --batch`: `<oid> <type> <size>\n<bytes>\n` each (`<oid> missing\n` for none). */
function parseBatch(output: Buffer): Map<string, Buffer> {
  const blobs = new Map<string, Buffer>();
  let offset = 0;
  while (offset < output.length) {
    const end = output.indexOf(10, offset);
    if (end < 0) break;
    const [oid = '', type, size] = output.subarray(offset, end).toString('latin1').split(' ');
    offset = end + 1;
    if (type === undefined || size === undefined) continue;
    const length = Number(size);
    blobs.set(oid, output.subarray(offset, offset + length));
    offset += length + 1;
  }
  return blobs;
}
