// The refs of a workspace's own repository, read as text (never by git, which would obey the
// repository's config): HEAD, packed-refs and the loose files under refs/, each opened without
// following a link and only where it really lies inside the `.git` folder, bounded in size and
// count. A name or value that is not well formed is left out, never guessed at.
import path from 'node:path';
import { listWithin, readWithin } from '../environments/no-follow';
import { ID_HEX, type ObjectFormat } from './object-format';

export interface WorkspaceRefs {
  /** Ref name (`refs/...`) -> object id (lower-case hex); loose files win over packed-refs. */
  refs: Map<string, string>;
  /** HEAD: `ref: refs/...` or an object id; undefined when missing or malformed. */
  head?: string;
  /** Linked worktrees' detached HEADs (`worktrees/<name>/HEAD` -> id): commits made there may have no other name. */
  worktreeHeads: Map<string, string>;
}

/** Linked worktrees looked at, at most. */
const MAX_WORKTREES = 64;
const WORKTREE_NAME = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;

/** Whether `name` is a linked worktree's HEAD as kept beside the refs (`worktrees/<name>/HEAD`). */
export function isWorktreeHead(name: string): boolean {
  const parts = name.split('/');
  return parts.length === 3 && parts[0] === 'worktrees' && WORKTREE_NAME.test(parts[1]!) && !parts[1]!.endsWith('.lock') && parts[2] === 'HEAD';
}

/** A loose ref or HEAD is a line; packed-refs may be long, but not without end. */
const REF_FILE_BYTES = 4096;
const PACKED_REFS_BYTES = 16 * 1024 * 1024;
/** Folders deep under refs/ (each level is a listing). */
const REF_DEPTH = 16;


/** Whether `name` is a ref name git itself would accept (check-ref-format's rules), under refs/. */
export function isValidRefName(name: string): boolean {
  if (!name.startsWith('refs/') || name.endsWith('/') || name.endsWith('.') || name.includes('..') || name.includes('@{') || name.includes('//')) return false;
  // No control character, space or any of ~^:?*[\ (bytes git refuses); no DEL.
  if ([...name].some((char) => char <= ' ' || char === '\u007f' || '~^:?*[\\'.includes(char))) return false;
  return name.split('/').every((part) => part.length > 0 && !part.startsWith('.') && !part.endsWith('.lock'));
}

/** Lower-case hex of the length `format` gives ids. */
export function isObjectId(value: string, format: ObjectFormat = 'sha1'): boolean {
  return value.length === ID_HEX[format] && /^[0-9a-f]+$/.test(value);
}

export class TooManyRefs extends Error {
  override readonly name = 'TooManyRefs';
}

/** The refs of the repository whose `.git` folder is `gitDirectory` (its expected real path). Throws TooManyRefs past `maxRefs`. */
export async function readWorkspaceRefs(gitDirectory: string, maxRefs: number, format: ObjectFormat = 'sha1'): Promise<WorkspaceRefs> {
  const refs = new Map<string, string>();
  const packed = await readWithin(path.join(gitDirectory, 'packed-refs'), gitDirectory, PACKED_REFS_BYTES);
  if (packed) {
    for (const line of packed.content.toString('utf8').split('\n')) {
      // `<id> <name>`; `^<id>` (a tag's peeled value) and `#` (traits) lines say nothing of their own.
      const [id = '', name = '', ...rest] = line.trim().split(' ');
      if (rest.length || !isObjectId(id, format) || !isValidRefName(name)) continue;
      refs.set(name, id);
      if (refs.size > maxRefs) throw new TooManyRefs(`more than ${maxRefs} refs`);
    }
  }
  await readLooseRefs(gitDirectory, 'refs', refs, maxRefs, 0, format);
  const head = await readWithin(path.join(gitDirectory, 'HEAD'), gitDirectory, REF_FILE_BYTES);
  const worktreeHeads = new Map<string, string>();
  for (const entry of (await listWithin(path.join(gitDirectory, 'worktrees'), gitDirectory, MAX_WORKTREES)) ?? []) {
    const name = `worktrees/${entry.name}/HEAD`;
    if (!entry.isDirectory() || !isWorktreeHead(name)) continue;
    const read = await readWithin(path.join(gitDirectory, name), gitDirectory, REF_FILE_BYTES);
    const value = read && headValue(read.content.toString('utf8'), format);
    // One on a branch names a ref kept anyway.
    if (value && !value.startsWith('ref: ')) worktreeHeads.set(name, value);
  }
  return { refs, head: head ? headValue(head.content.toString('utf8'), format) : undefined, worktreeHeads };
}

async function readLooseRefs(gitDirectory: string, folder: string, refs: Map<string, string>, maxRefs: number, depth: number, format: ObjectFormat): Promise<void> {
  if (depth > REF_DEPTH) return;
  const entries = await listWithin(path.join(gitDirectory, folder), gitDirectory, maxRefs + 1);
  for (const entry of entries ?? []) {
    const name = `${folder}/${entry.name}`;
    if (entry.isDirectory()) await readLooseRefs(gitDirectory, name, refs, maxRefs, depth + 1, format);
    // A link is no ref of this repository's (it may lead to another's, or anywhere).
    if (!entry.isFile() || !isValidRefName(name)) continue;
    const read = await readWithin(path.join(gitDirectory, name), gitDirectory, REF_FILE_BYTES);
    const id = read?.content.toString('utf8').trim();
    // A symbolic ref under refs/ (refs/remotes/origin/HEAD) names a ref kept anyway.
    if (id === undefined || !isObjectId(id, format)) continue;
    refs.set(name, id);
    if (refs.size > maxRefs) throw new TooManyRefs(`more than ${maxRefs} refs`);
  }
}

function headValue(text: string, format: ObjectFormat): string | undefined {
  const value = text.trim();
  if (isObjectId(value, format)) return value;
  const target = /^ref: (\S+)$/.exec(value)?.[1];
  return target !== undefined && isValidRefName(target) ? `ref: ${target}` : undefined;
}
