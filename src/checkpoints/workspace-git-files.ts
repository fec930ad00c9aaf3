// The files of a workspace repository's `.git` that say how its git behaves and where it has
// been, kept with its history: `config` (a model's script can set core.fsmonitor, core.hooksPath
// or a remote's URL there), the hooks (one planted runs on the user's next commit) and the reflogs
// under `logs/` (the way back to commits no ref names any more). Listed and read without following
// a link, only inside the `.git` folder, bounded in count and size; what is over a bound is left
// out and counted. Kept as a tree of the shadow repository, built here (blobs and trees hashed by
// us, checked again by index-pack), never by a git run over the workspace's files.
import { createHash } from 'node:crypto';
import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { listWithin, readWithin } from '../environments/no-follow';
import { isObjectId } from './workspace-git-refs';
import type { ObjectFormat } from './object-format';

/** Files kept of one repository, at most, and their bytes (each, and together). */
const MAX_FILES = 512;
const MAX_FILE_BYTES = 1024 * 1024;
const MAX_TOTAL_BYTES = 8 * 1024 * 1024;
/** Folders deep under logs/ (refs nest), folders listed and entries looked at, at most. */
const MAX_DEPTH = 16;
const MAX_FOLDERS = 256;
const MAX_ENTRIES = 2 * 512;
/** Linked worktrees looked at, at most. */
const MAX_WORKTREES = 64;
/** Distinct commits the reflogs name that are kept reachable, at most. */
export const MAX_REFLOG_COMMITS = 1000;

export interface GitFileEntry {
  /** Relative to the `.git` folder: `config`, `hooks/pre-commit`, `logs/refs/heads/main`. */
  name: string;
  executable: boolean;
  /** Size, inode and change time: the same stamp next turn, and the file is not read again. */
  stamp: string;
}

export interface ListedGitFiles {
  files: GitFileEntry[];
  /** Found but over a bound (or not plain files): not kept. */
  leftOut: number;
  /** Hooks among them (a link, or too large), by name: a rollback leaves them be rather than take them for planted. */
  hooksLeftOut: string[];
}

export interface GitFile {
  name: string;
  executable: boolean;
  content: Buffer;
}

/** The config, hooks and reflogs of the repository whose `.git` folder is `gitDirectory` (its real path). */
export async function listGitFiles(gitDirectory: string): Promise<ListedGitFiles> {
  const listed: ListedGitFiles = { files: [], leftOut: 0, hooksLeftOut: [] };
  let bytes = 0;
  // Entries looked at and folders listed, at most: a tree of empty folders costs no more than files.
  const budget = { entries: MAX_ENTRIES, folders: MAX_FOLDERS };
  const add = async (name: string): Promise<void> => {
    if (--budget.entries < 0) return leaveOut(name);
    const stat = await lstat(path.join(gitDirectory, name)).catch(() => undefined);
    if (!stat) return;
    if (!stat.isFile() || stat.size > MAX_FILE_BYTES || bytes + stat.size > MAX_TOTAL_BYTES || listed.files.length >= MAX_FILES) {
      leaveOut(name);
      return;
    }
    bytes += stat.size;
    listed.files.push({ name, executable: (stat.mode & 0o100) !== 0, stamp: `${stat.size}:${stat.mode}:${stat.ino}:${stat.ctimeMs}` });
  };
  const leaveOut = (name: string) => {
    listed.leftOut++;
    if (name.startsWith('hooks/')) listed.hooksLeftOut.push(name.slice('hooks/'.length));
  };
  await add('config');
  // git runs hooks/<name> only: a folder there is nothing it runs.
  for (const entry of (await listWithin(path.join(gitDirectory, 'hooks'), gitDirectory, MAX_FILES + 1)) ?? []) {
    if (entry.isFile()) await add(`hooks/${entry.name}`);
    else leaveOut(`hooks/${entry.name}`);
  }
  await addFolder(gitDirectory, 'logs', 0, add, listed, budget);
  // Linked worktrees' reflogs (their HEAD's): in the main repository, under worktrees/<name>/logs.
  for (const entry of (await listWithin(path.join(gitDirectory, 'worktrees'), gitDirectory, MAX_WORKTREES)) ?? []) {
    if (entry.isDirectory()) await addFolder(gitDirectory, `worktrees/${entry.name}/logs`, 1, add, listed, budget);
  }
  return listed;
}

async function addFolder(gitDirectory: string, folder: string, depth: number, add: (name: string) => Promise<void>, listed: ListedGitFiles, budget: { folders: number }): Promise<void> {
  if (depth > MAX_DEPTH || --budget.folders < 0) {
    listed.leftOut++;
    return;
  }
  for (const entry of (await listWithin(path.join(gitDirectory, folder), gitDirectory, MAX_FILES + 1)) ?? []) {
    const name = `${folder}/${entry.name}`;
    if (entry.isDirectory()) await addFolder(gitDirectory, name, depth + 1, add, listed, budget);
    else if (entry.isFile()) await add(name);
    else listed.leftOut++;
  }
}

/** A digest of the listing: what changes when any of the files does. */
export function gitFilesStamp(listed: ListedGitFiles): string {
  const lines = listed.files.map((file) => `${file.name}\0${file.stamp}\n`).sort();
  return createHash('sha256').update(`${listed.leftOut} ${JSON.stringify(listed.hooksLeftOut.sort())}\n`).update(lines.join('')).digest('hex');
}

/** The listed files' bytes, each read without following a link (one gone or grown meanwhile: left out). */
export async function readGitFiles(gitDirectory: string, listed: ListedGitFiles): Promise<GitFile[]> {
  const read = await Promise.all(listed.files.map((file) => readWithin(path.join(gitDirectory, file.name), gitDirectory, MAX_FILE_BYTES)));
  let bytes = 0;
  return listed.files.flatMap((file, index) => {
    const content = read[index]?.content;
    if (!content || bytes + content.length > MAX_TOTAL_BYTES) return [];
    bytes += content.length;
    return [{ name: file.name, executable: file.executable, content }];
  });
}

/** Object ids the reflogs name (old and new of each line), the null id left out; at most `max`. */
export function reflogIds(files: readonly GitFile[], format: ObjectFormat, max = MAX_REFLOG_COMMITS): string[] {
  const ids = new Set<string>();
  for (const file of files) {
    if (!file.name.startsWith('logs/') && !/^worktrees\/[^/]+\/logs\//.test(file.name)) continue;
    for (const line of file.content.toString('latin1').split('\n')) {
      for (const id of line.split(' ', 2)) {
        if (isObjectId(id, format) && !/^0+$/.test(id)) ids.add(id);
        if (ids.size >= max) return [...ids];
      }
    }
  }
  return [...ids];
}

export interface GitObject {
  type: 'blob' | 'tree';
  body: Buffer;
}

/** Blobs and trees holding `files` (objects of `format`), and the id of the top tree. */
export function treeOf(files: readonly GitFile[], format: ObjectFormat): { tree: string; objects: GitObject[] } {
  const objects: GitObject[] = [];
  const store = (object: GitObject): Buffer => {
    objects.push(object);
    return createHash(format).update(`${object.type} ${object.body.length}\0`).update(object.body).digest();
  };
  interface Folder {
    files: Map<string, { mode: string; id: Buffer }>;
    folders: Map<string, Folder>;
  }
  const root: Folder = { files: new Map(), folders: new Map() };
  for (const file of files) {
    const parts = file.name.split('/');
    const last = parts.pop()!;
    let folder = root;
    for (const part of parts) {
      let next = folder.folders.get(part);
      if (!next) folder.folders.set(part, (next = { files: new Map(), folders: new Map() }));
      folder = next;
    }
    folder.files.set(last, { mode: file.executable ? '100755' : '100644', id: store({ type: 'blob', body: file.content }) });
  }
  const write = (folder: Folder): Buffer => {
    const entries = [...folder.files].map(([name, entry]) => ({ name, sortName: name, ...entry }));
    for (const [name, child] of folder.folders) entries.push({ name, sortName: `${name}/`, mode: '40000', id: write(child) });
    // git's order: by bytes, a folder's name compared as if it ended in a slash.
    entries.sort((a, b) => Buffer.compare(Buffer.from(a.sortName), Buffer.from(b.sortName)));
    return store({ type: 'tree', body: Buffer.concat(entries.map((entry) => Buffer.concat([Buffer.from(`${entry.mode} ${entry.name}\0`), entry.id]))) });
  };
  const tree = write(root).toString('hex');
  return { tree, objects };
}
