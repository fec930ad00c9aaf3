// Copying the objects of a workspace's own repository into the shadow repository, trusting no
// name: a loose object is kept only when its inflated bytes hash to its name, a pack only through
// the shadow git's `index-pack` (which checks every object and the pack's checksum, as for any
// fetched pack). Files are opened without following links, only inside the `.git` folder, and
// what the shadow repository holds already is not read again.
import { createHash } from 'node:crypto';
import { constants, existsSync } from 'node:fs';
import { open, readlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { deflateSync, inflateSync } from 'node:zlib';
import { liesWithin, listWithin, readWithin } from '../environments/no-follow';
import { runShadowGit, type ShadowRepository } from './shadow-git';
import type { Deadline } from './deadline';
import { formatOf, ID_BYTES, ID_HEX, type ObjectFormat } from './object-format';

const NO_FOLLOW = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const FAN_OUT = /^[0-9a-f]{2}$/;
/** Object types and their numbers in a pack. */
const PACK_TYPES = { commit: 1, tree: 2, blob: 3, tag: 4 } as const;
// A pack's last 20 bytes (32 for SHA-256) are the hash of all before them, which names the pack index-pack writes.

export interface ObjectFiles {
  loose: { id: string; file: string }[];
  packs: { file: string; size: number }[];
  /** Bytes of all of them (packs' sizes; loose objects counted when read). */
  packBytes: number;
}

export class TooLargeHistory extends Error {
  override readonly name = 'TooLargeHistory';
}

/** The loose objects and packs under `<gitDirectory>/objects` (at most `maxFiles` of them). */
export async function listObjectFiles(gitDirectory: string, maxFiles: number, format: ObjectFormat = 'sha1'): Promise<ObjectFiles> {
  const looseRest = new RegExp(`^[0-9a-f]{${ID_HEX[format] - 2}}$`);
  const objects = path.join(gitDirectory, 'objects');
  const listed: ObjectFiles = { loose: [], packs: [], packBytes: 0 };
  const tooMany = () => new TooLargeHistory(`more than ${maxFiles} object files`);
  const fanOut = ((await listWithin(objects, gitDirectory, 300)) ?? []).filter((folder) => folder.isDirectory() && FAN_OUT.test(folder.name));
  // Listed side by side: one after another, 256 folders took 0.2 s.
  const folders = await Promise.all(fanOut.map(async (folder) => ({ name: folder.name, entries: (await listWithin(path.join(objects, folder.name), gitDirectory, maxFiles + 1)) ?? [] })));
  for (const folder of folders) {
    for (const entry of folder.entries) {
      if (!entry.isFile() || !looseRest.test(entry.name)) continue;
      listed.loose.push({ id: `${folder.name}${entry.name}`, file: path.join(objects, folder.name, entry.name) });
      if (listed.loose.length > maxFiles) throw tooMany();
    }
  }
  for (const entry of (await listWithin(path.join(objects, 'pack'), gitDirectory, maxFiles + 1)) ?? []) {
    if (!entry.isFile() || !entry.name.endsWith('.pack')) continue;
    listed.packs.push({ file: path.join(objects, 'pack', entry.name), size: 0 });
    if (listed.packs.length > maxFiles) throw tooMany();
  }
  return listed;
}

/** Object ids (of `ids`) the shadow repository lacks. */
export async function missingFromShadow(repository: ShadowRepository, ids: readonly string[], deadline: Deadline): Promise<string[]> {
  if (!ids.length) return [];
  const output = await runShadowGit(repository, ['cat-file', '--batch-check=%(objectname)'], { input: `${ids.join('\n')}\n`, timeoutMs: deadline.remainingMs() });
  return output
    .toString('utf8')
    .split('\n')
    .flatMap((line) => (line.endsWith(' missing') ? [line.slice(0, -' missing'.length)] : []));
}

export interface LooseObject {
  type: string;
  body: Buffer;
}

/**
 * The loose object `id`, if its file (read without following a link, at most `maxFileBytes`,
 * and `maxBytes` inflated) holds that very object; undefined otherwise (a link, outside, too large, or its
 * content is not what its name says).
 */
export async function readLooseObject(gitDirectory: string, object: { id: string; file: string }, maxFileBytes: number, maxBytes: number, format: ObjectFormat = 'sha1'): Promise<LooseObject | undefined> {
  const read = await readWithin(object.file, gitDirectory, maxFileBytes);
  const verified = read && verifiedLooseObject(read.content, object.id, maxBytes, format);
  return verified || undefined;
}

/** The type and body `compressed` (a loose object file) inflates to, if it is well formed and its hash (of `format`) is `id`. */
export function verifiedLooseObject(compressed: Buffer, id: string, maxBytes: number, format: ObjectFormat = 'sha1'): { type: string; body: Buffer } | undefined {
  let inflated: Buffer;
  try {
    inflated = inflateSync(compressed, { maxOutputLength: maxBytes });
  } catch {
    return undefined;
  }
  const nul = inflated.indexOf(0);
  const [type = '', size = ''] = inflated.subarray(0, Math.max(0, nul)).toString('latin1').split(' ');
  if (nul < 0 || !(type in PACK_TYPES) || !/^\d+$/.test(size) || Number(size) !== inflated.length - nul - 1) return undefined;
  return createHash(format).update(inflated).digest('hex') === id ? { type, body: inflated.subarray(nul + 1) } : undefined;
}

/**
 * Keeps verified loose objects as one pack, through `index-pack` (which hashes each again): a
 * file each in the shadow repository took 2,000 writes for 2,000 objects.
 */
export async function keepAsPack(repository: ShadowRepository, objects: readonly LooseObject[], deadline: Deadline): Promise<void> {
  if (!objects.length) return;
  await runShadowGit(repository, ['index-pack', '--stdin'], { input: packOf(objects, formatOf(repository)), timeoutMs: deadline.remainingMs() });
}

/** A version 2 pack of whole (undeltified) objects. */
export function packOf(objects: readonly { type: string; body: Buffer }[], format: ObjectFormat = 'sha1'): Buffer {
  const header = Buffer.alloc(12);
  header.write('PACK', 0, 'latin1');
  header.writeUInt32BE(2, 4);
  header.writeUInt32BE(objects.length, 8);
  const parts = [header];
  for (const object of objects) {
    // Type and size: 4 bits of size in the first byte, then 7 bits a byte, the high bit saying more follow.
    const bytes: number[] = [];
    let size = object.body.length;
    let byte = (PACK_TYPES[object.type as keyof typeof PACK_TYPES] << 4) | (size & 15);
    size = Math.floor(size / 16);
    while (size > 0) {
      bytes.push(byte | 0x80);
      byte = size & 0x7f;
      size = Math.floor(size / 128);
    }
    bytes.push(byte);
    parts.push(Buffer.from(bytes), deflateSync(object.body));
  }
  const pack = Buffer.concat(parts);
  return Buffer.concat([pack, createHash(format).update(pack).digest()]);
}

/** A pack file of the workspace opened without following a link, if it is a plain file inside `gitDirectory`. */
export async function openPack(file: string, gitDirectory: string, format: ObjectFormat = 'sha1'): Promise<{ handle: FileHandle; size: number } | undefined> {
  const handle = await open(file, NO_FOLLOW).catch(() => undefined);
  if (!handle) return undefined;
  const info = await handle.stat().catch(() => undefined);
  const real = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined);
  if (!info?.isFile() || info.size <= ID_BYTES[format] || real === undefined || !liesWithin(real, gitDirectory)) {
    await handle.close();
    return undefined;
  }
  return { handle, size: info.size };
}

/**
 * Brings an opened pack into the shadow repository through `index-pack` (unless a pack with its
 * checksum is there already, or `held` says it was brought before): its checksum, or undefined
 * when git refused it.
 */
export async function keepPack(repository: ShadowRepository, pack: { handle: FileHandle; size: number }, held: ReadonlySet<string>, deadline: Deadline): Promise<{ checksum: string; onlyListed?: true } | undefined> {
  const trailerBytes = ID_BYTES[formatOf(repository)];
  const trailer = Buffer.alloc(trailerBytes);
  await pack.handle.read(trailer, 0, trailerBytes, pack.size - trailerBytes);
  const checksum = trailer.toString('hex');
  // The checksum is the hash of the pack: one with the same one is the same pack.
  if (existsSync(path.join(repository.gitDirectory, 'objects', 'pack', `pack-${checksum}.pack`))) return { checksum };
  if (held.has(checksum)) return { checksum, onlyListed: true };
  // Only the bytes there when it was looked at: a pack growing meanwhile is read no further.
  const stream = pack.handle.createReadStream({ start: 0, end: pack.size - 1, autoClose: false });
  try {
    const output = await runShadowGit(repository, ['index-pack', '--stdin'], { input: stream, timeoutMs: deadline.remainingMs() });
    const kept = new RegExp(`^(?:pack|keep)\\t([0-9a-f]{${trailerBytes * 2}})$`, 'm').exec(output.toString('utf8'))?.[1];
    return kept === undefined ? undefined : { checksum: kept };
  } catch {
    return undefined;
  } finally {
    stream.destroy();
  }
}
