// A rollback puts back the history a checkpoint kept of the workspace's own repository: one pack
// of every object its refs reach, written by the shadow git (never by a git run in the workspace's
// repository, whose config is the model's), then the refs and HEAD as loose ref files. Each file
// is made beside its name in `.git`, reached through folders opened without following a link, and
// renamed over it. Objects already there stay (a duplicate in a pack is harmless to git); refs
// made since the checkpoint stay too; refs it recorded are set back to what it recorded.
import { constants, copyFileSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { keptRefs } from './keep-git-history';
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
}

/** Each repository's history `target` kept (the workspace's own, then those nested in it). */
export async function restoreHistories(repository: ShadowRepository, target: CheckpointRecord, deadline: Deadline): Promise<RestoredHistory[]> {
  const restored: RestoredHistory[] = [];
  for (const name of ['', ...Object.keys(target.nestedGit ?? {})]) {
    const history = await restoreHistory(repository, target, name, deadline);
    if (history) restored.push(history);
  }
  return restored;
}

async function restoreHistory(repository: ShadowRepository, target: CheckpointRecord, name: string, deadline: Deadline): Promise<RestoredHistory | undefined> {
  const record = recordOf(target, name);
  if (!record?.refs) return undefined;
  const refs = await keptRefs(repository, target.id, deadline.remainingMs(), name);
  if (!refs.length) return undefined;
  const dotGit = gitDirectoryName(name);
  const restored: RestoredHistory = { repository: name, refs: [], skipped: [] };
  // Made in the shadow repository (the worker's own folder), then copied into the workspace.
  const scratch = mkdtempSync(path.join(repository.gitDirectory, 'hermes-restore-'));
  try {
    const ids = [...new Set(refs.map(([, id]) => id))];
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
  if (!restored.pack) return restored;
  for (const [ref, id] of refs) {
    if (ref === 'HEAD') continue;
    if (writeRefFile(repository.workTree, `${dotGit}/${ref}`, `${id}\n`)) restored.refs.push(`${ref} -> ${id.slice(0, 12)}`);
    else restored.skipped.push(`${dotGit}/${ref}`);
  }
  const head = record.head?.startsWith('ref: ') ? record.head : refs.find(([ref]) => ref === 'HEAD')?.[1];
  if (head !== undefined) {
    if (writeRefFile(repository.workTree, `${dotGit}/HEAD`, `${head}\n`)) restored.refs.push(`HEAD -> ${head.startsWith('ref: ') ? head.slice(5) : head.slice(0, 12)}`);
    else restored.skipped.push(`${dotGit}/HEAD`);
  }
  return restored;
}

function writeRefFile(workTree: string, name: string, content: string): boolean {
  return replaceWithin(workTree, name, (temporary) => writeNewFile(temporary, Buffer.from(content), 0o666));
}

/** Copies a file of the shadow repository's to the work tree's `name`; O_EXCL: nothing planted under the temporary name is written through. */
function copyInto(workTree: string, name: string, source: string): boolean {
  return replaceWithin(workTree, name, (temporary) => copyFileSync(source, temporary, constants.COPYFILE_EXCL));
}
