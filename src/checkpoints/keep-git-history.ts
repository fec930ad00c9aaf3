// A checkpoint keeps the history of the workspace's own repository too: a script of the model's
// can delete `.git/objects` and refs unasked, and with them the user's unpushed commits. Its
// objects are copied into the shadow repository (verified, see workspace-git-objects.ts) and its
// refs stored as `refs/hermes/<checkpoint>/<name>`, each only when everything it reaches is held:
// reachable there, kept as long as the checkpoint, and dropped with it; its config, hooks and
// reflogs beside them (workspace-git-files.ts). Unchanged, they cost a read of the ref files and a
// stat of those files: nothing else is looked at.
import { createHash } from 'node:crypto';
import { lstat, readFile, realpath, writeFile } from 'node:fs/promises';
import { liesWithin, readWithin } from '../environments/no-follow';
import path from 'node:path';
import { runShadowGit, type ShadowRepository } from './shadow-git';
import type { Deadline } from './deadline';
import { keepAsPack, keepPack, listObjectFiles, missingFromShadow, openPack, readLooseObject, TooLargeHistory, type LooseObject } from './workspace-git-objects';
import { isWorktreeHead, readWorkspaceRefs, TooManyRefs, type WorkspaceRefs } from './workspace-git-refs';
import { gitFilesStamp, listGitFiles, readGitFiles, reflogIds, treeOf, type ListedGitFiles } from './workspace-git-files';
import { formatOf, objectFormatOfConfig, type ObjectFormat } from './object-format';

export const HISTORY_REFS = 'refs/hermes/';
/**
 * In a repository's namespace, beside its refs: a commit whose tree holds the config, hooks and
 * reflogs (workspace-git-files.ts) and whose parents are the commits the reflogs name, so that the
 * store keeps them as long as the checkpoint.
 */
const GIT_FILES_REF = 'hermes-git-files';
const FILES_IDENTITY = 'hermes-temporal <checkpoints@hermes-temporal.invalid>';
/** A config larger than this is read as none (its object format: SHA-1). */
const CONFIG_BYTES = 1024 * 1024;
/** Refs of one repository kept, at most (each checkpoint holds its own copy of them). */
const MAX_REFS = 10_000;
/** Loose objects and packs of one repository, at most. */
const MAX_OBJECT_FILES = 200_000;
/** Loose objects read and copied at once. */
const LOOSE_BATCH = 64;
/** Loose objects' bytes read at once, and held (inflated) before they are packed. */
const PACK_BATCH_BYTES = 32 * 1024 * 1024;
/** When refs together fail the reachability check, each is tried alone, at most this many. */
const SINGLE_CHECKS = 32;

/** What a checkpoint's record says of the workspace's repository. */
export interface HistoryRecord {
  /** A digest of every ref and HEAD found: when it is the same next time, nothing is read again. */
  state: string;
  /** HEAD as found: `ref: refs/heads/main`, or an object id (kept as `<namespace>/HEAD`). */
  head?: string;
  /** Refs kept, and those found but not (their object missing, or what it reaches). */
  refs: number;
  dropped?: number;
  /** Why none was kept (too large, or git refused it): tried again once the refs change. */
  leftOut?: string;
  /** A SHA-256 repository's: kept in the SHA-256 store (object-format.ts). */
  objectFormat?: 'sha256';
  /** Files of its `.git` kept (config, hooks, reflogs), and those found but over a bound. */
  files?: number;
  filesLeftOut?: number;
}

export type FoundHistory =
  | { kind: 'none' }
  | { kind: 'left-out'; reason: string; state: string }
  | { kind: 'found'; gitDirectory: string; format: ObjectFormat; refs: WorkspaceRefs; files: ListedGitFiles; state: string };

export function historyNamespace(checkpointId: number): string {
  return `${HISTORY_REFS}${String(checkpointId).padStart(8, '0')}/`;
}

/**
 * The refs of a `.git` folder (its expected real path; none when it has none, or it is a link).
 * A `.git` file (a linked worktree's or a submodule's) names a repository kept where it lies, when
 * that is inside `workTree`: one outside is left out, and said so, never followed.
 */
export async function findHistory(gitDirectory: string, workTree: string): Promise<FoundHistory> {
  const stat = await lstat(gitDirectory).catch(() => undefined);
  if (stat?.isFile()) return gitFileHistory(gitDirectory, workTree);
  if (!stat?.isDirectory()) return { kind: 'none' };
  try {
    const config = await readWithin(path.join(gitDirectory, 'config'), gitDirectory, CONFIG_BYTES);
    const format = objectFormatOfConfig(config?.content.toString('utf8') ?? '');
    if (!format) return leftOut('its .git/config names an object format other than sha1 and sha256');
    const refs = await readWorkspaceRefs(gitDirectory, MAX_REFS, format);
    if (!refs.refs.size && refs.head === undefined && !refs.worktreeHeads.size) return { kind: 'none' };
    const files = await listGitFiles(gitDirectory);
    const lines = [...refs.refs, ...refs.worktreeHeads].map(([name, id]) => `${id} ${name}\n`).sort();
    const state = createHash('sha256').update(`HEAD ${refs.head ?? ''}\n`).update(lines.join('')).update(`files ${gitFilesStamp(files)}\n`).digest('hex');
    return { kind: 'found', gitDirectory, format, refs, files, state };
  } catch (error) {
    if (error instanceof TooManyRefs) return leftOut(`its .git holds ${error.message}`);
    throw error;
  }
}

function leftOut(reason: string): FoundHistory {
  return { kind: 'left-out', reason, state: createHash('sha256').update(`left out: ${reason}`).digest('hex') };
}

/**
 * A `.git` file (`gitdir: <path>`): its repository is elsewhere. Inside the work tree it is a
 * submodule's (kept from `.git/modules`) or a linked worktree's whose main repository is kept as
 * one nested there; outside, nothing of it is kept, and the checkpoint says so.
 */
async function gitFileHistory(gitFile: string, workTree: string): Promise<FoundHistory> {
  const read = await readWithin(gitFile, path.dirname(gitFile), 4096);
  const named = read && /^gitdir: (.+)$/m.exec(read.content.toString('utf8'))?.[1]?.trim();
  if (!named) return { kind: 'none' };
  const target = path.resolve(path.dirname(gitFile), named);
  // Resolved to tell where it lies, never opened.
  const real = await realpath(target).catch(() => target);
  if (liesWithin(real, workTree)) return { kind: 'none' };
  const worktree = path.basename(path.dirname(real)) === 'worktrees';
  // The path as JSON: it is the model's text, line breaks and all.
  return leftOut(`its .git is a file naming ${worktree ? "a linked worktree's repository" : 'a repository'} outside the workspace (${JSON.stringify(real)}), whose history a checkpoint does not keep`);
}

/** Where one repository of the workspace keeps its refs in checkpoint `id`: '' is the workspace's own. */
export function repositoryNamespace(id: number, repository: string): string {
  return repository === '' ? historyNamespace(id) : `${historyNamespace(id)}nested/${keyOf(repository)}/`;
}

function keyOf(repository: string): string {
  return createHash('sha256').update(repository, 'latin1').digest('hex').slice(0, 16);
}

/**
 * Keeps `found` (the repository at `where`, '' for the workspace's own) for checkpoint `id`:
 * copies the objects the shadow repository lacks (unless the refs are those `previous` kept,
 * whose refs are then only copied) and stores the refs.
 */
export async function keepHistory(
  repository: ShadowRepository,
  found: Extract<FoundHistory, { kind: 'found' }>,
  where: { id: number; repository: string },
  previous: { id: number; record: HistoryRecord } | undefined,
  limits: { maxGitBytes: number },
  deadline: Deadline,
): Promise<HistoryRecord> {
  const git = (args: string[], input?: string) => runShadowGit(repository, args, { timeoutMs: deadline.remainingMs(), ...(input === undefined ? {} : { input }) });
  const namespace = repositoryNamespace(where.id, where.repository);
  if (previous && previous.record.state === found.state) {
    const kept = await refsIn(git, repositoryNamespace(previous.id, where.repository), 'own');
    await storeRefs(git, namespace, kept);
    return { ...previous.record };
  }
  const heldFile = path.join(repository.gitDirectory, where.repository === '' ? 'hermes-kept-packs' : `hermes-kept-packs-${keyOf(where.repository)}`);
  const trustedList = await copyObjects(repository, found.gitDirectory, heldFile, limits.maxGitBytes, 'skip-held', deadline);
  const wanted = [...found.refs.refs, ...found.refs.worktreeHeads];
  if (found.refs.head && !found.refs.head.startsWith('ref: ')) wanted.push(['HEAD', found.refs.head]);
  let kept = await reachableInShadow(git, wanted);
  if (kept.length < wanted.length && trustedList) {
    // A pack brought before may have lost, in a compaction, objects no ref reached then.
    await copyObjects(repository, found.gitDirectory, heldFile, limits.maxGitBytes, 'all', deadline);
    kept = await reachableInShadow(git, wanted);
  }
  await storeRefs(git, namespace, kept);
  const dropped = wanted.length - kept.length;
  const files = await keepGitFiles(repository, found, where, deadline);
  return { state: found.state, ...(found.format === 'sha256' ? { objectFormat: 'sha256' } : {}), ...(found.refs.head ? { head: found.refs.head } : {}), refs: kept.length, ...(dropped ? { dropped } : {}), ...files };
}

/**
 * Keeps the config, hooks and reflogs of `found` for checkpoint `where.id`, and the commits the
 * reflogs name that the store holds whole (those it lacks are not made up: a reflog line naming
 * one stays as it was, as in the repository).
 */
export async function keepGitFiles(
  repository: ShadowRepository,
  found: Extract<FoundHistory, { kind: 'found' }>,
  where: { id: number; repository: string },
  deadline: Deadline,
): Promise<Pick<HistoryRecord, 'files' | 'filesLeftOut'>> {
  const git = (args: string[], input?: string) => runShadowGit(repository, args, { timeoutMs: deadline.remainingMs(), ...(input === undefined ? {} : { input }) });
  const files = await readGitFiles(found.gitDirectory, found.files);
  const leftOut = found.files.leftOut + found.files.files.length - files.length;
  const counts = { files: files.length, ...(leftOut ? { filesLeftOut: leftOut } : {}) };
  if (!files.length) return counts;
  const { tree, objects } = treeOf(files, found.format);
  const ids = reflogIds(files, found.format);
  const types = ids.length ? (await git(['cat-file', '--batch-check=%(objectname) %(objecttype)'], `${ids.join('\n')}\n`)).toString('utf8') : '';
  const commits = types.split('\n').flatMap((line) => (line.endsWith(' commit') ? [line.slice(0, -' commit'.length)] : []));
  const parents = (await reachableInShadow(git, commits.map((id) => ['', id]))).map(([, id]) => id);
  // Made here with the tree (one index-pack, no commit-tree): the same files and parents, the same commit.
  // The hooks left out are named in its message: a rollback does not remove them.
  const message = `hermes: the config, hooks and reflogs of a workspace repository\n\n${JSON.stringify({ hooksLeftOut: found.files.hooksLeftOut })}\n`;
  const body = Buffer.from([`tree ${tree}`, ...parents.map((id) => `parent ${id}`), `author ${FILES_IDENTITY} 0 +0000`, `committer ${FILES_IDENTITY} 0 +0000`, '', message].join('\n'));
  const anchor = createHash(found.format).update(`commit ${body.length}\0`).update(body).digest('hex');
  await keepAsPack(repository, [...objects, { type: 'commit', body }], deadline);
  await git(['update-ref', `${repositoryNamespace(where.id, where.repository)}${GIT_FILES_REF}`, anchor]);
  return counts;
}

/**
 * Copies what the shadow repository lacks. Packs brought before are listed in a file of its own
 * (`hermes-kept-packs`): a compaction merges them, and they would otherwise be read again.
 * Resolves true when a pack was passed over only because that list names it.
 */
async function copyObjects(repository: ShadowRepository, gitDirectory: string, heldFile: string, maxGitBytes: number, packs: 'skip-held' | 'all', deadline: Deadline): Promise<boolean> {
  const held = new Set(packs === 'all' ? [] : await readFile(heldFile, 'utf8').then((text) => text.split('\n').filter(Boolean), () => []));
  const format = formatOf(repository);
  const listed = await listObjectFiles(gitDirectory, MAX_OBJECT_FILES, format);
  let total = 0;
  const tooLarge = () => new TooLargeHistory(`its .git/objects holds more than ${Math.round(maxGitBytes / 1024 / 1024)} MB (checkpoints.max_git_mb)`);
  const opened = [];
  try {
    for (const { file } of listed.packs) {
      const pack = await openPack(file, gitDirectory, format);
      if (!pack) continue;
      opened.push(pack);
      total += pack.size;
      if (total > maxGitBytes) throw tooLarge();
    }
    const loose = new Map(listed.loose.map((object) => [object.id, object]));
    // Sized first (a file over the limit is never read), then read side by side in batches of
    // bounded bytes: one after another, 2,000 loose objects took 3 s.
    const missing = await sized((await missingFromShadow(repository, [...loose.keys()], deadline)).map((id) => loose.get(id)!));
    total += missing.reduce((sum, object) => sum + object.size, 0);
    if (total > maxGitBytes) throw tooLarge();


    let pending: LooseObject[] = [];
    let pendingBytes = 0;
    for (const group of readGroups(missing)) {
      const read = await Promise.all(group.map((object) => readLooseObject(gitDirectory, object, object.size, maxGitBytes, format)));
      for (const object of read) {
        if (!object) continue;
        pending.push(object);
        pendingBytes += object.body.length;
        if (pendingBytes > PACK_BATCH_BYTES) {
          await keepAsPack(repository, pending, deadline);
          pending = [];
          pendingBytes = 0;
        }
      }
    }
    await keepAsPack(repository, pending, deadline);
    const kept = [];
    for (const pack of opened) {
      // Each run stopped at the deadline is quick, but hundreds of them are not.
      if (deadline.passed()) throw new TooLargeHistory('copying it took longer than the time the checkpoint gives it (checkpoints.timeout_seconds)');
      kept.push(await keepPack(repository, pack, held, deadline));
    }
    // Only the packs the repository has now: the list stays as short as its pack folder.
    await writeFile(heldFile, kept.flatMap((pack) => (pack ? [`${pack.checksum}\n`] : [])).join(''));
    return kept.some((pack) => pack?.onlyListed);
  } finally {
    for (const pack of opened) await pack.handle.close();
  }
}

/** Each loose object with its file's size (gone or no file: left out). */
async function sized(objects: readonly { id: string; file: string }[]): Promise<{ id: string; file: string; size: number }[]> {
  const sizes = await Promise.all(objects.map((object) => lstat(object.file).then((stat) => (stat.isFile() ? stat.size : -1), () => -1)));
  return objects.flatMap((object, index) => (sizes[index]! >= 0 ? [{ ...object, size: sizes[index]! }] : []));
}

/** Groups of at most LOOSE_BATCH objects and PACK_BATCH_BYTES of files (a larger file alone). */
function readGroups<T extends { size: number }>(objects: readonly T[]): T[][] {
  const groups: T[][] = [];
  let bytes = Infinity;
  for (const object of objects) {
    if (bytes + object.size > PACK_BATCH_BYTES || groups.at(-1)!.length >= LOOSE_BATCH) {
      groups.push([]);
      bytes = 0;
    }
    groups.at(-1)!.push(object);
    bytes += object.size;
  }
  return groups;
}

/** The refs whose object, and all it reaches, the shadow repository holds (git's own connectivity check). */
async function reachableInShadow(git: (args: string[], input?: string) => Promise<Buffer>, refs: [string, string][]): Promise<[string, string][]> {
  const reaches = (ids: string[]) =>
    git(['rev-list', '--objects', '--quiet', '--stdin', '--not', '--all'], `${ids.join('\n')}\n`).then(
      () => true,
      () => false,
    );
  if (!refs.length || (await reaches(refs.map(([, id]) => id)))) return refs;
  const kept: [string, string][] = [];
  const byId = new Map<string, boolean>();
  for (const [name, id] of refs) {
    if (!byId.has(id)) byId.set(id, byId.size < SINGLE_CHECKS && (await reaches([id])));
    if (byId.get(id)) kept.push([name, id]);
  }
  return kept;
}

/**
 * What a namespace holds: `own` is everything of that repository's (its refs and its files'
 * commit), `refs` its refs only (`refs/...` and `HEAD`). The namespace of the workspace's own
 * repository holds the nested ones' below `nested/`: neither is theirs.
 */
async function refsIn(git: (args: string[]) => Promise<Buffer>, namespace: string, which: 'own' | 'refs'): Promise<[string, string][]> {
  const output = await git(['for-each-ref', '--format=%(objectname) %(refname)', namespace]);
  return output
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .flatMap((line): [string, string][] => {
      const [id = '', ref = ''] = line.split(' ');
      const name = ref.slice(namespace.length);
      if (name.startsWith('nested/')) return [];
      return which === 'own' || name === 'HEAD' || name.startsWith('refs/') || isWorktreeHead(name) ? [[name, id]] : [];
    });
}

async function storeRefs(git: (args: string[], input?: string) => Promise<Buffer>, namespace: string, refs: [string, string][]): Promise<void> {
  if (refs.length) await git(['update-ref', '--stdin'], refs.map(([name, id]) => `update ${namespace}${name} ${id}\n`).join(''));
}

/** The refs a checkpoint kept of one repository (`refs/...` and `HEAD` when it was detached), name -> object id. */
export async function keptRefs(shadow: ShadowRepository, checkpointId: number, timeoutMs: number, repository = ''): Promise<[string, string][]> {
  return refsIn((args) => runShadowGit(shadow, args, { timeoutMs }), repositoryNamespace(checkpointId, repository), 'refs');
}

/** The commit holding the config, hooks and reflogs a checkpoint kept of one repository, if any. */
export async function keptGitFiles(shadow: ShadowRepository, checkpointId: number, timeoutMs: number, repository = ''): Promise<string | undefined> {
  const own = await refsIn((args) => runShadowGit(shadow, args, { timeoutMs }), repositoryNamespace(checkpointId, repository), 'own');
  return own.find(([name]) => name === GIT_FILES_REF)?.[1];
}
