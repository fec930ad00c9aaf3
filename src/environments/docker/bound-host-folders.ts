// A host folder bound writable into a session's container is the host's: a .npmrc, .yarnrc or
// pnpm hook file a command plants there runs with the user's rights the next time they run npm,
// npx, pnpm or yarn in it, and a repository it makes there (with a hook, or a config that runs a
// program) the next time they run git, outside any container. As in the local sandbox, what the
// folder held when the session started is the user's: a package config the session changed loses
// the keys that run programs or load code (package-config-guard.ts) after each command and write,
// and a repository it made loses its hooks and such settings at its end (git-control.ts; those
// there at the start have what git obeys read-only in the container, git-guard-binds.ts). The
// baselines are a label of the container: on the daemon, where any worker reads them and no command
// changes them, and out of the workflow's history. A container re-created after it vanished takes
// new ones.
import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { disarmNewNestedRepositories, disarmRepository, hasGitRepository } from '../git-control';
import { findNestedRepositories, gitDirectoryOf } from '../git-repositories';
import type { NestedRepositories } from '../nested-repositories';
import { isWithin } from '../path-within';
import { disarmPackageConfigs, packageConfigBaseline, type PackageConfigBaseline } from '../package-config-guard';
import { writableHostBinds } from './container-spec';

interface BoundFolder {
  /** Where the container sees the folder. */
  target: string;
  packageConfigs: PackageConfigBaseline;
  /** The nested repositories at the start, and whether the folder itself was one. */
  repositories: NestedRepositories & { top: boolean };
}

/** The baselines of the writable host folders this worker can see, as label text; undefined when there are none. */
export function recordBoundHostFolders(volumes: readonly string[]): string | undefined {
  const recorded: BoundFolder[] = [];
  for (const { source, target } of writableHostBinds(volumes)) {
    let folder: string;
    try {
      folder = realpathSync(source);
      if (!statSync(folder).isDirectory()) continue;
    } catch {
      // Not on this machine (a remote daemon's), or not made yet: nothing of the user's to keep.
      continue;
    }
    const since = Date.now();
    recorded.push({ target, packageConfigs: packageConfigBaseline(folder), repositories: { ...findNestedRepositories(folder), since, top: hasGitRepository(folder) } });
  }
  return recorded.length ? JSON.stringify(recorded) : undefined;
}

/** Disarms what the session left in its bound folders against the baselines recorded at its start. */
export class BoundHostFolders {
  private readonly bound: BoundFolder[];

  constructor(recorded: unknown) {
    this.bound = parse(recorded);
  }

  /**
   * Checks the package configs each folder held and those named in `written` (container paths a
   * file tool just wrote). `atEnd` (the session's end, when nothing writes the folders any more)
   * also looks through every subfolder for new package configs and new repositories (bounded).
   * Returns the note for the command's output, or ''.
   */
  settle(options: { atEnd?: boolean; written?: readonly string[] } = {}): string {
    const removed: string[] = [];
    for (const { target, packageConfigs, repositories } of this.bound) {
      const folder = packageConfigs.workspace;
      const written = (options.written ?? []).filter((file) => isWithin(file, target)).map((file) => path.join(folder, path.posix.relative(target, file)));
      try {
        removed.push(...disarmPackageConfigs(packageConfigs, { everywhere: options.atEnd ?? false, written }).map((file) => path.join(folder, file)));
        if (options.atEnd) removed.push(...newRepositoriesDisarmed(folder, repositories).map((item) => `${folder}: ${item}`));
      } catch (error) {
        removed.push(`(could not check ${folder}: ${error instanceof Error ? error.message : String(error)})`);
      }
    }
    return removed.length ? `\n[hermes-temporal: removed from a host folder mounted into the container what npm, yarn or git would run on the host: ${removed.join(', ')}]` : '';
  }
}

function newRepositoriesDisarmed(folder: string, repositories: BoundFolder['repositories']): string[] {
  const removed = disarmNewNestedRepositories(folder, repositories);
  const made = repositories.top ? undefined : gitDirectoryOf(folder);
  return made ? [...removed, ...disarmRepository(folder, made, new Set())] : removed;
}

function parse(recorded: unknown): BoundFolder[] {
  if (typeof recorded !== 'string') return [];
  try {
    const parsed = JSON.parse(recorded) as unknown;
    return Array.isArray(parsed) ? (parsed as BoundFolder[]) : [];
  } catch {
    return [];
  }
}
