// A rollback puts back the history a checkpoint kept of the workspace's own repository: one pack
// of every object its refs reach, written by the shadow git (never by a git run in the workspace's
// repository, whose config is the model's), then the refs and HEAD as loose ref files. Each file
// is made beside its name in `.git`, reached through folders opened without following a link, and
// renamed over it. Objects already there stay (a duplicate in a pack is harmless to git); refs
// made since the checkpoint stay too; refs it recorded are set back to what it recorded. Its
// config, hooks and reflogs are written back the same way, and hooks planted since are removed.
import { closeSync, constants, copyFileSync, fstatSync, lstatSync, mkdtempSync, openSync, readdirSync, readSync, rmSync, statSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { keptGitFiles, keptRefs, type HistoryRecord } from './keep-git-history';
import { inFolderBeneath } from './folder-chain';
import { historyStore } from './object-format';
import { gitDirectoryName, recordOf } from './workspace-histories';
import { runShadowGit, type ShadowRepository } from './shadow-git';
import type { CheckpointRecord } from './checkpoint-list';
import type { Deadline } from './deadline';
import { replaceWithin, writeNewFile } from './write-back';

export interface RestoredHistory {
  /** The repository's folder (a git name); '' for the workspace's own. */
  repository: string;
  /** Refs (and HEAD) written, `name -> short id` or `HEAD -> ref: ...`. */
  refs: string[];
  /** The pack written into `.git/objects/pack`, and its size. */
  pack?: { name: string; bytes: number };
  /** Not written: a folder on the way is a link or a file, or a folder holds the name. */
  skipped: string[];
  /** Files of `.git` written back (`config`, `hooks/...`, `logs/...`), and hooks removed (planted since). */
  files?: string[];
  removed?: string[];
}

/** Each repository's history `target` kept (the workspace's own, then those nested in it). */
export async function restoreHistories(repository: ShadowRepository, target: CheckpointRecord, deadline: Deadline): Promise<RestoredHistory[]> {
  const restored: RestoredHistory[] = [];
  for (const name of ['', ...Object.keys(target.nestedGit ?? {})]) {
    const history = await restoreHistory(historyStore(repository, recordOf(target, name)?.objectFormat ?? 'sha1'), target, name, deadline);
    if (history) restored.push(history);
  }
  return restored;
}

async function restoreHistory(repository: ShadowRepository, target: CheckpointRecord, name: string, deadline: Deadline): Promise<RestoredHistory | undefined> {
  const record = recordOf(target, name);
  if (!record) return undefined;
  const refs = record.refs ? await keptRefs(repository, target.id, deadline.remainingMs(), name) : [];
  const files = record.files ? await keptGitFiles(repository, target.id, deadline.remainingMs(), name) : undefined;
  if (!refs.length && !files) return undefined;
  const dotGit = gitDirectoryName(name);
  const restored: RestoredHistory = { repository: name, refs: [], skipped: [] };
  // The commits the reflogs name come back with those the refs reach.
  // The commits the reflogs name (its parents), and the hooks not kept (its message's last line).
  const [parents = '', ...message] = files ? (await runShadowGit(repository, ['show', '-s', '--format=%P%n%B', files], { timeoutMs: deadline.remainingMs() })).toString('utf8').split('\n').filter((line, index) => index === 0 || line.trim()) : [];
  const reflogCommits = parents.split(' ').filter(Boolean);
  if (refs.length) await restorePackAndRefs(repository, record, refs, reflogCommits, dotGit, restored, deadline);
  if (files) await restoreGitFiles(repository, files, hooksLeftOut(message.at(-1) ?? ''), dotGit, restored, deadline);
  return restored;
}

async function restorePackAndRefs(
  repository: ShadowRepository,
  record: HistoryRecord,
  refs: [string, string][],
  reflogCommits: string[],
  dotGit: string,
  restored: RestoredHistory,
  deadline: Deadline,
): Promise<void> {
  // Made in the shadow repository (the worker's own folder), then copied into the workspace.
  const scratch = mkdtempSync(path.join(repository.gitDirectory, 'hermes-restore-'));
  try {
    const ids = [...new Set([...refs.map(([, id]) => id), ...reflogCommits])];
    const pack = (await runShadowGit(repository, ['pack-objects', '--revs', '-q', path.join(scratch, 'pack')], { input: `${ids.join('\n')}\n`, timeoutMs: deadline.remainingMs() })).toString('utf8').trim();
    const files = readdirSync(scratch).filter((file) => file.startsWith(`pack-${pack}.`));
    // The index after the pack: git looks for a pack through its index.
    const ordered = [...files.filter((file) => file.endsWith('.pack')), ...files.filter((file) => file.endsWith('.idx'))];
    const copied = ordered.every((file) => copyInto(repository.workTree, `${dotGit}/objects/pack/${file}`, path.join(scratch, file)));
    if (copied) restored.pack = { name: `pack-${pack}.pack`, bytes: statSync(path.join(scratch, `pack-${pack}.pack`)).size };
    else restored.skipped.push(`${dotGit}/objects/pack`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  if (!restored.pack) return;
  for (const [ref, id] of refs) {
    if (ref === 'HEAD' || worktreeGone(repository.workTree, dotGit, ref)) continue;
    if (writeRefFile(repository.workTree, `${dotGit}/${ref}`, `${id}\n`)) restored.refs.push(`${ref} -> ${id.slice(0, 12)}`);
    else restored.skipped.push(`${dotGit}/${ref}`);
  }
  const head = record.head?.startsWith('ref: ') ? record.head : refs.find(([ref]) => ref === 'HEAD')?.[1];
  if (head !== undefined) {
    if (writeRefFile(repository.workTree, `${dotGit}/HEAD`, `${head}\n`)) restored.refs.push(`HEAD -> ${head.startsWith('ref: ') ? head.slice(5) : head.slice(0, 12)}`);
    else restored.skipped.push(`${dotGit}/HEAD`);
  }
}

/**
 * Writes back the config, hooks and reflogs the checkpoint kept, and removes hooks it did not
 * keep (planted since): the `.git` folder then makes git behave as it did at the checkpoint.
 * Reflogs made since stay, as refs made since do.
 */
async function restoreGitFiles(repository: ShadowRepository, commit: string, notKept: readonly string[], dotGit: string, restored: RestoredHistory, deadline: Deadline): Promise<void> {
  const git = (args: string[], input?: string) => runShadowGit(repository, args, { timeoutMs: deadline.remainingMs(), ...(input === undefined ? {} : { input }) });
  const entries = (await git(['ls-tree', '-r', '-z', commit]))
    .toString('latin1')
    .split('\0')
    .flatMap((line) => {
      const tab = line.indexOf('\t');
      const [mode = '', type, oid = ''] = line.slice(0, tab).split(' ');
      return tab > 0 && type === 'blob' ? [{ mode, oid, name: line.slice(tab + 1) }] : [];
    });
  const blobs = await blobsOf(git, entries.map((entry) => entry.oid));
  for (const entry of entries) {
    const bytes = blobs.get(entry.oid);
    // One as it was is left alone (and not named): most hooks and the config, most of the time.
    if (bytes !== undefined && alreadyThere(repository.workTree, `${dotGit}/${entry.name}`, bytes, entry.mode === '100755')) continue;
    if (worktreeGone(repository.workTree, dotGit, entry.name)) continue;
    const written = bytes !== undefined && replaceWithin(repository.workTree, `${dotGit}/${entry.name}`, (temporary) => writeNewFile(temporary, bytes, entry.mode === '100755' ? 0o777 : 0o666));
    if (written) restored.files = [...(restored.files ?? []), entry.name];
    else restored.skipped.push(`${dotGit}/${entry.name}`);
  }
  // Names as git's output gives them (latin1 strings of their bytes).
  const hooks = new Set([...notKept.map((name) => Buffer.from(name).toString('latin1')), ...entries.flatMap((entry) => (entry.name.startsWith('hooks/') ? [entry.name.slice('hooks/'.length)] : []))]);
  // The folder opened without following a link; its entries named through it.
  inFolderBeneath(repository.workTree, `${dotGit}/hooks/.`, (_file, folder) => {
    for (const hook of readdirSync(folder, { encoding: 'latin1' })) {
      if (hooks.has(hook)) continue;
      try {
        unlinkSync(Buffer.concat([folder, Buffer.from(`/${hook}`, 'latin1')]));
        restored.removed = [...(restored.removed ?? []), `hooks/${hook}`];
      } catch {
        // A folder (git runs none), or gone meanwhile.
      }
    }
  });
}

/**
 * Whether `name` (of `.git`) is a linked worktree's whose folder there is gone (`git worktree
 * remove` since): its HEAD or reflog is not made again, which would leave git a worktree folder
 * with no `gitdir`.
 */
function worktreeGone(workTree: string, dotGit: string, name: string): boolean {
  const worktree = /^worktrees\/[^/]+(?=\/)/.exec(name)?.[0];
  if (worktree === undefined) return false;
  return inFolderBeneath(workTree, `${dotGit}/${worktree}/gitdir`, (file) => lstatSync(file, { throwIfNoEntry: false })?.isFile()) !== true;
}

/** Whether the work tree's `name` is a plain file holding `bytes`, executable or not as `executable` says; read without following a link. */
function alreadyThere(workTree: string, name: string, bytes: Buffer, executable: boolean): boolean {
  const same = inFolderBeneath(workTree, name, (file) => {
    let descriptor: number;
    try {
      descriptor = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch {
      return false;
    }
    try {
      const stat = fstatSync(descriptor);
      if (!stat.isFile() || stat.size !== bytes.length || ((stat.mode & 0o100) !== 0) !== executable) return false;
      const content = Buffer.alloc(bytes.length);
      let offset = 0;
      for (let read = -1; read !== 0 && offset < bytes.length; offset += read) read = readSync(descriptor, content, offset, bytes.length - offset, offset);
      return offset === bytes.length && content.equals(bytes);
    } finally {
      closeSync(descriptor);
    }
  });
  return same === true;
}

/** Names in the files' commit's `{"hooksLeftOut": [...]}` (ours, but read as any JSON is). */
function hooksLeftOut(line: string): string[] {
  try {
    const parsed = (JSON.parse(line) as { hooksLeftOut?: unknown }).hooksLeftOut;
    return Array.isArray(parsed) ? parsed.filter((name): name is string => typeof name === 'string') : [];
  } catch {
    return [];
  }
}

/** The bytes of these blobs (`cat-file --batch`). */
async function blobsOf(git: (args: string[], input?: string) => Promise<Buffer>, ids: readonly string[]): Promise<Map<string, Buffer>> {
  const blobs = new Map<string, Buffer>();
  if (!ids.length) return blobs;
  const output = await git(['cat-file', '--batch'], `${ids.join('\n')}\n`);
  for (let offset = 0; offset < output.length; ) {
    const end = output.indexOf(10, offset);
    if (end < 0) break;
    const [oid = '', type, size] = output.subarray(offset, end).toString('latin1').split(' ');
    offset = end + 1;
    if (type === undefined || size === undefined) continue;
    blobs.set(oid, output.subarray(offset, offset + Number(size)));
    offset += Number(size) + 1;
  }
  return blobs;
}

function writeRefFile(workTree: string, name: string, content: string): boolean {
  return replaceWithin(workTree, name, (temporary) => writeNewFile(temporary, Buffer.from(content), 0o666));
}

/** Copies a file of the shadow repository's to the work tree's `name`; O_EXCL: nothing planted under the temporary name is written through. */
function copyInto(workTree: string, name: string, source: string): boolean {
  return replaceWithin(workTree, name, (temporary) => copyFileSync(source, temporary, constants.COPYFILE_EXCL));
}
