// Takes a checkpoint: the workspace's files as they are now, stored as a commit of the shadow
// repository (refs/checkpoints/<n>), unless nothing changed since the last one. Bounded: the
// listing stops past `maxFiles` (the snapshot is then skipped, never half taken), larger files
// than `maxFileBytes` are left out, and every git run shares one deadline. Unchanged files cost
// a stat each: the shadow index remembers what it hashed.
import { createHash } from 'node:crypto';
import { close, constants, fstat, read, readlinkSync } from 'node:fs';
import { promisify } from 'node:util';
import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { runShadowGit, type ShadowRepository } from './shadow-git';
import { ensureShadowRepository } from './shadow-repository';
import { inFolderBeneath } from './folder-chain';
import { openOrUndefined } from '../environments/folder-beneath';
import { listCheckpoints, CHECKPOINT_REFS, type CheckpointRecord, type CheckpointOrigin } from './checkpoint-list';
import { startingPoints, treeHasStart } from './session-starts';
import { HISTORY_REFS, historyNamespace } from './keep-git-history';
import type { Deadline } from './deadline';
import { findHistories, keepHistories, sameHistories } from './workspace-histories';
import { historyStore } from './object-format';
import { indexIdentity, recallIndex, rememberIndex } from './index-memory';
import { existsSync } from 'node:fs';

export interface CheckpointLimits {
  /** More files than this (after exclusions): no snapshot at all. */
  maxFiles: number;
  /** Larger files are left out of checkpoints. */
  maxFileBytes: number;
  /** One snapshot (or rollback) may take this long, lock wait included. */
  timeoutMs: number;
  /** Checkpoints kept per workspace; older ones go, but for the starting points of the newest this many session trees. */
  keep: number;
  /** A workspace repository whose objects are larger: its history is not kept (its files are). */
  maxGitBytes: number;
}

export type SnapshotOutcome =
  | { kind: 'taken'; checkpoint: CheckpointRecord; tree: string; durationMs: number; warning?: string }
  | { kind: 'unchanged'; latest: CheckpointRecord; tree: string; durationMs: number; warning?: string }
  | { kind: 'skipped'; reason: string; durationMs: number };

const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
/** Changed files a checkpoint names (the counts cover all of them). */
const NAMED_FILES = 20;
/** Once the oldest checkpoints are being dropped, storage is compacted every this many. */
const COMPACT_EVERY = 10;
/** What a snapshot's re-read of a file hashes between two turns of the event loop. */
const HASH_CHUNK_BYTES = 1024 * 1024;
const fstatAsync = promisify(fstat);
const readAsync = promisify(read);
/** lstat calls in flight at once. */
const STAT_BATCH = 256;

export { deadlineIn, type Deadline } from './deadline';

/** Takes a checkpoint; the caller holds the workspace lock. */
export async function snapshotLocked(repository: ShadowRepository, origin: CheckpointOrigin, limits: CheckpointLimits, deadline: Deadline): Promise<SnapshotOutcome> {
  const started = Date.now();
  const elapsed = () => Date.now() - started;
  await ensureShadowRepository(repository, deadline.remainingMs());
  const listed = await listWorkspaceFiles(repository, limits.maxFiles, deadline);
  if (listed === 'too-many') {
    return { kind: 'skipped', reason: `the workspace holds more than ${limits.maxFiles} files (checkpoints.max_files)`, durationMs: elapsed() };
  }
  const sorted = await sortByStat(repository.workTree, listed, limits.maxFileBytes);
  const git = (args: string[], input?: string | Buffer) => runShadowGit(repository, args, { timeoutMs: deadline.remainingMs(), ...(input === undefined ? {} : { input }) });
  // Files gone (or behind a link now, or too large) leave the index without git looking at the
  // work tree; then the rest join (--replace: a file may become a folder or the other way round).
  // An unchanged file's stat matches its index entry and it is not read again.
  const leaving = [...sorted.gone, ...sorted.dropped];
  if (leaving.length) await git(['update-index', '--force-remove', '-z', '--stdin'], nulList(leaving));
  // The index's entries as they are now, while known (index-memory.ts).
  const before = indexIdentity(repository);
  let known = recallIndex(repository, before);
  if (sorted.present.length) {
    const indexed = known?.entries ?? (await indexEntries(git));
    await git(['update-index', '--add', '--replace', '-z', '--stdin'], nulList(sorted.present));
    // git rewrites the index only when an entry changed.
    const unchanged = before !== undefined && indexIdentity(repository) === before;
    const hashed = unchanged ? indexed : await indexEntries(git);
    const amended = await keepOnlyWhatIsInside(repository.workTree, indexed, hashed, git, limits.maxFileBytes);
    known = amended ? undefined : { entries: hashed, ...(unchanged ? { tree: known?.tree } : {}) };
  }
  const tree = known?.tree ?? (await git(['write-tree'])).toString('utf8').trim();
  // write-tree may rewrite the index (its cache of trees): remembered as it is after.
  rememberIndex(repository, known && { entries: known.entries, tree });

  const all = await listCheckpoints(repository, deadline.remainingMs());
  const latest = all.at(-1);
  const repositories = await findHistories(repository.workTree, listed.filter((name) => name.endsWith('/')));
  const leftOut = repositories.flatMap(({ found }) => (found.kind === 'left-out' ? [found.reason] : []));
  // A session tree's first snapshot is recorded even when nothing changed: it is where it started.
  if (latest && latest.tree === tree && sameHistories(latest, repositories) && treeHasStart(all, origin)) {
    return { kind: 'unchanged', latest, tree, durationMs: elapsed(), ...(leftOut.length ? { warning: `a repository's history is not kept: ${leftOut.join('; ')}` } : {}) };
  }

  const changed = parseNameStatus(await git(['diff-tree', '-r', '-z', '--no-renames', '--name-status', latest?.tree ?? EMPTY_TREE, tree]));
  const id = (latest?.id ?? 0) + 1;
  const { warnings, ...histories } = await keepHistories(repository, repositories, id, latest, limits, deadline);
  const warning = warnings.length ? warnings.join('; ') : undefined;
  const record: Omit<CheckpointRecord, 'commit' | 'tree'> = {
    id,
    ...origin,
    time: new Date().toISOString(),
    changed: {
      added: changed.filter((entry) => entry.status === 'A').length,
      modified: changed.filter((entry) => entry.status !== 'A' && entry.status !== 'D').length,
      deleted: changed.filter((entry) => entry.status === 'D').length,
      files: changed.slice(0, NAMED_FILES).map((entry) => displayName(entry.path)),
    },
    ...(sorted.large.length ? { leftOut: sorted.large.length } : {}),
    ...histories,
  };
  const commit = (await git(['commit-tree', tree], `${JSON.stringify(record)}\n`)).toString('utf8').trim();
  await git(['update-ref', refOf(id), commit]);
  const starts = startingPoints([...all, { id, sessionId: origin.sessionId }], limits.keep);
  const old = all.slice(0, Math.max(0, all.length + 1 - limits.keep)).filter((checkpoint) => !starts.has(checkpoint.id));
  if (old.length) {
    const dropped = new Set(old.map((checkpoint) => historyNamespace(checkpoint.id)));
    await git(['update-ref', '--stdin'], old.map((checkpoint) => `delete ${refOf(checkpoint.id)}\n`).join(''));
    const sha256 = historyStore(repository, 'sha256');
    for (const store of [repository, ...(existsSync(path.join(sha256.gitDirectory, 'objects')) ? [sha256] : [])]) {
      const storeGit = (args: string[], input?: string) => runShadowGit(store, args, { timeoutMs: deadline.remainingMs(), ...(input === undefined ? {} : { input }) });
      const historyRefs = (await storeGit(['for-each-ref', '--format=%(refname)', HISTORY_REFS])).toString('utf8').split('\n');
      const droppedHistory = historyRefs.filter((ref) => dropped.has(ref.slice(0, historyNamespace(0).length)));
      if (droppedHistory.length) await storeGit(['update-ref', '--stdin'], droppedHistory.map((ref) => `delete ${ref}\n`).join(''));
      // What only dropped checkpoints held goes every few checkpoints (each snapshot adds a pack).
      if (id % COMPACT_EVERY === 0) {
        await storeGit(['repack', '-a', '-d', '-q']);
        await storeGit(['prune', '--expire=now']);
      }
    }
  }
  return { kind: 'taken', checkpoint: { ...record, commit, tree }, tree, durationMs: elapsed(), ...(warning ? { warning } : {}) };
}

/** The shadow index: name -> `mode oid`. */
async function indexEntries(git: (args: string[]) => Promise<Buffer>): Promise<Map<string, string>> {
  const entries = new Map<string, string>();
  for (const line of (await git(['ls-files', '-s', '-z'])).toString('latin1').split('\0')) {
    const tab = line.indexOf('\t');
    if (tab > 0) entries.set(line.slice(tab + 1), line.slice(0, tab).split(' ').slice(0, 2).join(' '));
  }
  return entries;
}

/**
 * git read the files it hashed by path: a folder a running script swapped for a link meanwhile
 * had it read files behind the link (the user's) into the checkpoint. So what it hashed just now
 * is read again through folders opened without following links; an entry whose bytes differ
 * (swapped, or changing while snapshotted) goes back to what the index held before, or out.
 * Says whether it changed the index.
 */
async function keepOnlyWhatIsInside(
  workTree: string,
  before: Map<string, string>,
  after: Map<string, string>,
  git: (args: string[], input?: string | Buffer) => Promise<Buffer>,
  maxFileBytes: number,
): Promise<boolean> {
  const restore: string[] = [];
  const remove: string[] = [];
  for (const [name, entry] of after) {
    if (before.get(name) === entry) continue;
    const [mode, oid] = entry.split(' ') as [string, string];
    if ((await blobIdInside(workTree, name, mode, maxFileBytes)) === oid) continue;
    const previous = before.get(name);
    if (previous) restore.push(`${previous}\t${name}\0`);
    else remove.push(name);
  }
  if (remove.length) await git(['update-index', '--force-remove', '-z', '--stdin'], nulList(remove));
  if (restore.length) await git(['update-index', '-z', '--index-info'], Buffer.from(restore.join(''), 'latin1'));
  return remove.length + restore.length > 0;
}

/**
 * The blob id of a work-tree file or link as found inside the work tree (undefined: not there as
 * that kind, larger than `maxBytes`, or changing while read). A file is read in chunks, each
 * awaited: read whole at once, 300 files of 10 MB held the worker's thread 2.9 s a checkpoint.
 */
async function blobIdInside(workTree: string, name: string, mode: string, maxBytes: number): Promise<string | undefined> {
  if (mode === '120000') {
    const target = inFolderBeneath(workTree, name, (file) => attempt(() => readlinkSync(file, { encoding: 'buffer' })));
    return target && createHash('sha1').update(`blob ${target.length}\0`).update(target).digest('hex');
  }
  const descriptor = inFolderBeneath(workTree, name, (file) => openOrUndefined(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK));
  if (descriptor === undefined) return undefined;
  try {
    const info = await fstatAsync(descriptor);
    if (!info.isFile() || info.size > maxBytes) return undefined;
    const hash = createHash('sha1').update(`blob ${info.size}\0`);
    const chunk = Buffer.alloc(Math.min(HASH_CHUNK_BYTES, info.size + 1));
    let total = 0;
    for (let bytesRead = -1; bytesRead !== 0 && total <= info.size; total += bytesRead) {
      ({ bytesRead } = await readAsync(descriptor, chunk, 0, chunk.length, null));
      hash.update(chunk.subarray(0, bytesRead));
    }
    // Grown or shrunk while read: not the bytes git hashed, whatever they were.
    return total === info.size ? hash.digest('hex') : undefined;
  } catch {
    return undefined;
  } finally {
    close(descriptor, () => undefined);
  }
}

function attempt<T>(action: () => T): T | undefined {
  try {
    return action();
  } catch {
    return undefined;
  }
}

export function refOf(id: number): string {
  return `${CHECKPOINT_REFS}${String(id).padStart(8, '0')}`;
}

/** Tracked and untracked files (excluded folders and the workspace's .gitignore left out), or 'too-many'. */
async function listWorkspaceFiles(repository: ShadowRepository, maxFiles: number, deadline: Deadline): Promise<string[] | 'too-many'> {
  let count = 0;
  const output = await runShadowGit(repository, ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    timeoutMs: deadline.remainingMs(),
    // Stops git as soon as there are too many: a million files cost no more than maxFiles.
    onOutput: (chunk) => {
      for (const byte of chunk) if (byte === 0) count++;
      return count <= maxFiles;
    },
  });
  if (count > maxFiles) return 'too-many';
  // Paths are bytes to git: held as latin1 strings (one char a byte), so any name survives.
  const names = output.toString('latin1').split('\0').filter(Boolean);
  return [...new Set(names)];
}

interface SortedFiles {
  /** Files and links to keep. */
  present: string[];
  /** Listed (so in the index) but no longer there, or only behind a link. */
  gone: string[];
  /** Too large: left out, and taken out of the index. */
  dropped: string[];
  large: string[];
}

async function sortByStat(workTree: string, names: readonly string[], maxFileBytes: number): Promise<SortedFiles> {
  const sorted: SortedFiles = { present: [], gone: [], dropped: [], large: [] };
  const folders = new Map<string, Promise<boolean>>();
  // A folder on the way that is now a link (or gone): the file is not there any more, and nothing
  // behind the link is looked at.
  const reachable = (name: string): Promise<boolean> => {
    const folder = path.posix.dirname(name);
    if (folder === '.') return Promise.resolve(true);
    let known = folders.get(folder);
    if (!known) {
      known = Promise.all([reachable(folder), lstat(workTreePath(workTree, folder)).then((stat) => stat.isDirectory(), () => false)]).then(([above, here]) => above && here);
      folders.set(folder, known);
    }
    return known;
  };
  for (let start = 0; start < names.length; start += STAT_BATCH) {
    const batch = names.slice(start, start + STAT_BATCH);
    const stats = await Promise.all(batch.map(async (name) => ((await reachable(name)) ? lstat(workTreePath(workTree, name)).catch(() => null) : null)));
    batch.forEach((name, index) => {
      const stat = stats[index];
      // A nested repository is listed as `name/`: its files are its own repository's business.
      if (name.endsWith('/')) return;
      if (!stat) return void sorted.gone.push(name);
      if (stat.isSymbolicLink()) return void sorted.present.push(name);
      if (!stat.isFile()) return void sorted.dropped.push(name);
      if (stat.size > maxFileBytes) {
        sorted.large.push(name);
        return void sorted.dropped.push(name);
      }
      sorted.present.push(name);
    });
  }
  return sorted;
}

export interface NameStatus {
  status: string;
  path: string;
}

/** Entries of `diff-tree -z --name-status`, paths as latin1 strings (see `displayName`). */
export function parseNameStatus(output: Buffer): NameStatus[] {
  const fields = output.toString('latin1').split('\0');
  const entries: NameStatus[] = [];
  for (let index = 0; index + 1 < fields.length; index += 2) {
    const status = fields[index]!;
    if (!status) break;
    entries.push({ status: status[0]!, path: fields[index + 1]! });
  }
  return entries;
}

/** Names (latin1 strings) as git reads them on stdin with -z. */
export function nulList(names: readonly string[]): Buffer {
  return Buffer.from(names.map((name) => `${name}\0`).join(''), 'latin1');
}

/** A file of the work tree by its git name (latin1 string): the exact bytes, for fs calls. */
export function workTreePath(workTree: string, name: string): Buffer {
  return Buffer.concat([Buffer.from(`${workTree}/`), Buffer.from(name, 'latin1')]);
}

/** A git name as people read it. */
export function displayName(name: string): string {
  return Buffer.from(name, 'latin1').toString('utf8');
}
