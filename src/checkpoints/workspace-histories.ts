// The repositories whose history a checkpoint keeps: the workspace's own `.git`, those of
// repositories nested in it (the snapshot's listing names each as `name/`; its files are not
// kept, being its own repository's), and their submodules' (git keeps a submodule's repository
// in `.git/modules/<name>`, the submodule's folder holding only a `.git` file pointing there), at
// most MAX_NESTED of them, each bounded on its own.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { ShadowRepository } from './shadow-git';
import type { CheckpointRecord } from './checkpoint-list';
import { deadlineIn, type Deadline } from './deadline';
import { findHistory, keepGitFiles, keepHistory, type FoundHistory, type HistoryRecord } from './keep-git-history';
import { ensureHistoryStore, historyStore } from './object-format';

/** Nested repositories kept, at most (the first found). */
const MAX_NESTED = 16;

export interface FoundRepository {
  /** Its folder relative to the workspace (a git name); '' for the workspace itself. */
  name: string;
  found: FoundHistory;
}

export interface KeptHistories {
  git?: HistoryRecord;
  nestedGit?: Record<string, HistoryRecord>;
  warnings: string[];
}

/** Folders of `.git/modules` looked into for submodules' repositories, at most (modules nest, and their names hold slashes). */
const MAX_MODULE_FOLDERS = 256;

/** `nested`: the listing's `name/` entries. */
export async function findHistories(workTree: string, nested: readonly string[]): Promise<FoundRepository[]> {
  // A name that is not UTF-8 cannot be named by a path string: left out.
  const names = nested
    .map((name) => name.replace(/\/$/, ''))
    .filter((name) => name && Buffer.from(Buffer.from(name, 'latin1').toString('utf8')).toString('latin1') === name)
    .slice(0, MAX_NESTED);
  const at = (name: string) => path.join(workTree, Buffer.from(gitDirectoryName(name), 'latin1').toString('utf8'));
  const repositories = await Promise.all(['', ...names].map(async (name) => ({ name, found: await findHistory(at(name), workTree) })));
  const modules: string[] = [];
  for (const { name, found } of repositories) {
    if (found.kind === 'found') modules.push(...(await submoduleRepositories(at(name), gitDirectoryName(name), MAX_NESTED - names.length - modules.length)));
  }
  const submodules = await Promise.all(modules.map(async (name) => ({ name, found: await findHistory(at(name), workTree) })));
  return [...repositories, ...submodules];
}

/**
 * Where a repository's `.git` folder is, relative to the work tree: a submodule's repository is
 * named by that folder itself (`.git/modules/lib`), a nested one by its work tree (`vendor/lib`).
 */
export function gitDirectoryName(name: string): string {
  if (name === '') return '.git';
  return /(?:^|\/)\.git\/modules\//.test(name) ? name : `${name}/.git`;
}

/**
 * The submodules' repositories under `<gitDirectory>/modules` (named from the work tree), their own
 * submodules' too, breadth first; links not followed. Names are ASCII, as git spells module names.
 */
async function submoduleRepositories(gitFolder: string, gitDirectory: string, limit: number): Promise<string[]> {
  const found: string[] = [];
  let queue = [`${gitDirectory}/modules`];
  const folderOf = (name: string) => path.join(gitFolder, name.slice(gitDirectory.length));
  let looked = 0;
  while (queue.length && found.length < limit && looked < MAX_MODULE_FOLDERS) {
    const next: string[] = [];
    for (const folder of queue) {
      if (found.length >= limit || looked++ >= MAX_MODULE_FOLDERS) break;
      const entries = await readdir(folderOf(folder), { withFileTypes: true }).catch(() => []);
      // A repository holds HEAD and objects; any other folder is part of a module's name (`libs/core`).
      if (entries.some((entry) => entry.name === 'HEAD' && entry.isFile()) && entries.some((entry) => entry.name === 'objects' && entry.isDirectory())) {
        found.push(folder);
        next.push(`${folder}/modules`);
        continue;
      }
      for (const entry of entries) if (entry.isDirectory() && /^[\x20-\x7e]+$/.test(entry.name)) next.push(`${folder}/${entry.name}`);
    }
    queue = next;
  }
  return found.slice(0, Math.max(0, limit));
}

export function recordOf(checkpoint: Pick<CheckpointRecord, 'git' | 'nestedGit'> | undefined, name: string): HistoryRecord | undefined {
  return name === '' ? checkpoint?.git : checkpoint?.nestedGit?.[name];
}

/** Whether the refs of every repository are as `latest` recorded them (and no repository came or went). */
export function sameHistories(latest: CheckpointRecord | undefined, repositories: readonly FoundRepository[]): boolean {
  const states = repositories.map(({ name, found }) => [name, found.kind === 'none' ? undefined : found.state] as const);
  const recordedNested = Object.keys(latest?.nestedGit ?? {});
  const foundNested = new Set(states.flatMap(([name, state]) => (name && state !== undefined ? [name] : [])));
  return states.every(([name, state]) => recordOf(latest, name)?.state === state) && recordedNested.every((name) => foundNested.has(name));
}

/** Keeps each repository's history for checkpoint `id`, within half the time left; what fails is a warning. */
export async function keepHistories(shadow: ShadowRepository, repositories: readonly FoundRepository[], id: number, latest: CheckpointRecord | undefined, limits: { maxGitBytes: number }, deadline: Deadline): Promise<KeptHistories> {
  // At most half the time left: a large repository's first copy, stopped, leaves the files' checkpoint time to finish.
  const budget = deadlineIn(deadline.remainingMs() / 2);
  const kept: KeptHistories = { warnings: [] };
  for (const { name, found } of repositories) {
    const where = path.join(shadow.workTree, Buffer.from(gitDirectoryName(name), 'latin1').toString('utf8'));
    if (found.kind === 'left-out') {
      // Recorded too: the checkpoint's listing says what it did not keep.
      kept.warnings.push(`the history of ${where} is not kept: ${found.reason}`);
      const record: HistoryRecord = { state: found.state, refs: 0, leftOut: found.reason };
      if (name === '') kept.git = record;
      else kept.nestedGit = { ...kept.nestedGit, [name]: record };
    }
    if (found.kind !== 'found') continue;
    const previous = latest && recordOf(latest, name);
    const store = historyStore(shadow, found.format);
    let record: HistoryRecord;
    try {
      await ensureHistoryStore(store, budget.remainingMs());
      record = await keepHistory(store, found, { id, repository: name }, previous && latest ? { id: latest.id, record: previous } : undefined, limits, budget);
    } catch (error) {
      // The files are checkpointed all the same; the state is recorded so that the next turns, the
      // refs unchanged, neither try again nor count as a change.
      const reason = error instanceof Error ? error.message : String(error);
      kept.warnings.push(`the history of ${where} is not kept: ${reason}`);
      // Its config, hooks and reflogs are small: kept all the same, when they can be.
      const files = await keepGitFiles(store, found, { id, repository: name }, budget).catch(() => ({}));
      record = { state: found.state, ...(found.format === 'sha256' ? { objectFormat: 'sha256' } : {}), refs: 0, leftOut: reason, ...files };
    }
    if (name === '') kept.git = record;
    else kept.nestedGit = { ...kept.nestedGit, [name]: record };
  }
  return kept;
}
