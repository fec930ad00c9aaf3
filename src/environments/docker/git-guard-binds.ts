// A host folder bound into a session's container is the host's: what git obeys in a repository
// there (its hooks and config, a `core.hooksPath` folder, an included config file) runs on the
// host the next time the user commits, outside any container. A script the model wrote and ran
// in the container could plant one unasked, so, as the local sandbox does, the container gets
// each of them read-only, and each repository folder as a mount point (it cannot be renamed or
// replaced). What git obeys is read once, when the container is created, on this worker: a
// repository made later is disarmed at the session's end instead (bound-host-folders.ts), and a
// bind source this worker cannot see (a remote daemon's) is not guarded.
import { existsSync, mkdirSync, realpathSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CONTROL_ENTRIES, gitObeyedPathsIn, workTreesOf } from '../git-control';
import { findNestedRepositories, repositoryDirectories } from '../git-repositories';
import { isWithin } from '../path-within';

/** `source:target[:mode]` of a host bind, `~` expanded; undefined for a named volume. */
function parseHostBind(volume: string): { source: string; target: string; readOnly: boolean } | undefined {
  const [rawSource = '', target, mode = ''] = volume.split(':');
  if (!target || !(rawSource.startsWith('/') || rawSource.startsWith('~'))) return undefined;
  const source = rawSource === '~' || rawSource.startsWith('~/') ? path.join(os.homedir(), rawSource.slice(1)) : rawSource;
  return { source, target, readOnly: mode.split(',').includes('ro') };
}

/** Extra binds (docker `Binds` entries) guarding the repositories inside the given volumes' host folders. */
export function gitGuardBinds(volumes: readonly string[]): string[] {
  const binds: string[] = [];
  for (const volume of volumes) {
    const bind = parseHostBind(volume);
    if (!bind || bind.readOnly) continue;
    let source: string;
    try {
      source = realpathSync(bind.source);
      if (!statSync(source).isDirectory()) continue;
    } catch {
      continue;
    }
    const inContainer = (hostPath: string) => path.posix.join(bind.target, path.relative(source, hostPath));
    const workTrees = workTreesOf(source, findNestedRepositories(source).workTrees);
    const readOnly = new Set<string>();
    for (const directory of repositoryDirectories(source, workTrees)) {
      // A mount point of its own: `mv .git elsewhere && git init` cannot replace it.
      binds.push(`${directory}:${inContainer(directory)}`);
      try {
        mkdirSync(path.join(directory, 'hooks'), { recursive: true });
      } catch {
        // Not ours to create: nor can a command then.
      }
      for (const entry of CONTROL_ENTRIES) readOnly.add(path.join(directory, entry));
    }
    for (const workTree of workTrees) readOnly.add(path.join(workTree, '.git'));
    const obeyed = gitObeyedPathsIn(source, workTrees);
    for (const target of [...obeyed.files, ...obeyed.folders]) readOnly.add(target);
    for (const target of readOnly) {
      // A `.git` folder is bound above; its `.git` file form is all pointer, read-only.
      if (!existsSync(target) || !isWithin(target, source) || (path.basename(target) === '.git' && statSync(target).isDirectory())) continue;
      binds.push(`${target}:${inContainer(target)}:ro`);
    }
  }
  return binds;
}
