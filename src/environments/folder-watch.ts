// What a sandboxed process may leave in the one folder it can write that git, npm or yarn would
// run later, outside any sandbox. The sandbox keeps the repositories that exist when the process
// starts read-only where git obeys them; what the process does around them (a new repository, a
// commondir, a new submodule, a package config) is checked once it has ended, or after each
// request for a process that lives on (an MCP server), and disarmed.
import { checkRepositories, disarmNewNestedRepositories, guardRepositories, workTreesOf } from './git-control';
import type { NestedRepositories } from './nested-repositories';
import { disarmPackageConfigs, type PackageConfigBaseline } from './package-config-guard';

export interface FolderRemovals {
  repositories: string[];
  packageConfigs: string[];
}

/**
 * Call before the process starts (`folder` real, `nested` the work trees the sandbox guards
 * besides the folder's own); the function it returns disarms what the process left and says what.
 */
export function watchFolder(
  folder: string,
  nested: readonly string[],
  options: {
    /** Whether a repository may have appeared unguarded at any time (a background process started where none existed). */
    unguarded?: () => boolean;
    /** The package configs as they were before anything the session ran. */
    packageConfigs: () => PackageConfigBaseline | undefined;
    /** Look through every subfolder for new package configs too (bounded; not on a command's hot path). */
    everywhere?: boolean;
    /**
     * The nested repositories when the process started: one made since, in any subfolder, is
     * disarmed after each request (a process that lives on; a command's wait for the session's end).
     */
    nestedAtStart?: NestedRepositories;
  },
): () => FolderRemovals {
  const guard = guardRepositories(folder, workTreesOf(folder, nested));
  const { nestedAtStart } = options;
  return () => ({
    repositories: [...checkRepositories(guard, options.unguarded?.() ?? false), ...(nestedAtStart ? disarmNewNestedRepositories(folder, nestedAtStart) : [])],
    packageConfigs: disarmPackageConfigs(options.packageConfigs(), { everywhere: options.everywhere ?? false }),
  });
}

/** The note for a command's output, or '' when nothing was removed. */
export function describeRemovals(removed: FolderRemovals): string {
  let note = '';
  if (removed.repositories.length) {
    note += `\n[hermes-temporal: removed what git would run or obey outside the sandbox, from a repository this command or a background process created, registered or redirected: ${removed.repositories.join(', ')}]`;
  }
  if (removed.packageConfigs.length) {
    note += `\n[hermes-temporal: removed from the workspace's package manager config what npm, npx or yarn would run or load outside the sandbox: ${removed.packageConfigs.join(', ')}]`;
  }
  return note;
}
