// A rollback puts back the history a checkpoint kept of the workspace's own repository: one pack
// of every object its refs reach, written by the shadow git (never by a git run in the workspace's
// repository, whose config is the model's), then the refs and HEAD as loose ref files. Each file
// is made beside its name in `.git`, reached through folders opened without following a link, and
// renamed over it. Objects already there stay (a duplicate in a pack is harmless to git); refs
// made since the checkpoint stay too; refs it recorded are set back to what it recorded.
import { constants, copyFileSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { keptRefs } from './keep-git-history';
import { runShadowGit, type ShadowRepository } from './shadow-git';
import type { CheckpointRecord } from './checkpoint-list';
import type { Deadline } from './snapshot';
import { replaceWithin, writeNewFile } from './write-back';

export interface RestoredHistory {
  /** Refs (and HEAD) written, `name -> short id` or `HEAD -> ref: ...`. */
  refs: string[];
  /** The pack written into `.git/objects/pack`, and its size. */
  pack?: { name: string; bytes: number };
  /** Not written: a folder on the way is a link or a file, or a folder holds the name. */
  skipped: string[];
}

export async function restoreHistory(repository: ShadowRepository, target: CheckpointRecord, deadline: Deadline): Promise<RestoredHistory | undefined> {
  if (!target.git?.refs) return undefined;
  const refs = await keptRefs(repository, target.id, deadline.remainingMs());
  if (!refs.length) return undefined;
  const restored: RestoredHistory = { refs: [], skipped: [] };
  // Made in the shadow repository (the worker's own folder), then copied into the workspace.
  const scratch = mkdtempSync(path.join(repository.gitDirectory, 'hermes-restore-'));
  try {
    const ids = [...new Set(refs.map(([, id]) => id))];
    const name = (await runShadowGit(repository, ['pack-objects', '--revs', '-q', path.join(scratch, 'pack')], { input: `${ids.join('\n')}\n`, timeoutMs: deadline.remainingMs() })).toString('utf8').trim();
    const files = readdirSync(scratch).filter((file) => file.startsWith(`pack-${name}.`));
    // The index after the pack: git looks for a pack through its index.
    const ordered = [...files.filter((file) => file.endsWith('.pack')), ...files.filter((file) => file.endsWith('.idx'))];
    const copied = ordered.every((file) => copyInto(repository.workTree, `.git/objects/pack/${file}`, path.join(scratch, file)));
    if (copied) restored.pack = { name: `pack-${name}.pack`, bytes: statSync(path.join(scratch, `pack-${name}.pack`)).size };
    else restored.skipped.push('.git/objects/pack');
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  if (!restored.pack) return restored;
  for (const [name, id] of refs) {
    if (name === 'HEAD') continue;
    if (writeRefFile(repository.workTree, name, `${id}\n`)) restored.refs.push(`${name} -> ${id.slice(0, 12)}`);
    else restored.skipped.push(`.git/${name}`);
  }
  const head = target.git.head?.startsWith('ref: ') ? target.git.head : refs.find(([name]) => name === 'HEAD')?.[1];
  if (head !== undefined) {
    if (writeRefFile(repository.workTree, 'HEAD', `${head}\n`)) restored.refs.push(`HEAD -> ${head.startsWith('ref: ') ? head.slice(5) : head.slice(0, 12)}`);
    else restored.skipped.push('.git/HEAD');
  }
  return restored;
}

function writeRefFile(workTree: string, name: string, content: string): boolean {
  return replaceWithin(workTree, `.git/${name}`, (temporary) => writeNewFile(temporary, Buffer.from(content), 0o666));
}

/** Copies a file of the shadow repository's to the work tree's `name`; O_EXCL: nothing planted under the temporary name is written through. */
function copyInto(workTree: string, name: string, source: string): boolean {
  return replaceWithin(workTree, name, (temporary) => copyFileSync(source, temporary, constants.COPYFILE_EXCL));
}
