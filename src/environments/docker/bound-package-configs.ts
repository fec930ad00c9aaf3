// A host folder bound writable into a session's container is the host's: a .npmrc, .yarnrc or
// pnpm hook file a command plants there runs with the user's rights the next time they run npm,
// npx, pnpm or yarn in it, outside any container. As in the local sandbox (package-config-guard.ts),
// what the folder held when the session started is the user's; anything else loses the keys that
// run programs or load code. The baseline travels in the handle, so any worker can check it.
import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { isWithin } from '../path-within';
import { disarmPackageConfigs, packageConfigBaseline, type PackageConfigBaseline } from '../package-config-guard';
import { writableHostBinds } from './container-spec';

interface BoundBaseline {
  /** Where the container sees the folder. */
  target: string;
  baseline: PackageConfigBaseline;
}

/** The baselines of the writable host folders this worker can see, as handle detail text; undefined when there are none. */
export function recordBoundPackageConfigs(volumes: readonly string[]): string | undefined {
  const recorded: BoundBaseline[] = [];
  for (const { source, target } of writableHostBinds(volumes)) {
    let folder: string;
    try {
      folder = realpathSync(source);
      if (!statSync(folder).isDirectory()) continue;
    } catch {
      // Not on this machine (a remote daemon's), or not made yet: nothing of the user's to keep.
      continue;
    }
    recorded.push({ target, baseline: packageConfigBaseline(folder) });
  }
  return recorded.length ? JSON.stringify(recorded) : undefined;
}

/** Disarms what the session left in its bound folders against the baselines recorded at its start. */
export class BoundPackageConfigs {
  private readonly bound: BoundBaseline[];

  constructor(recorded: unknown) {
    this.bound = parse(recorded);
  }

  /**
   * Checks the configs each folder held and those named in `written` (container paths a file tool
   * just wrote); `everywhere` also looks through every subfolder for new ones (bounded; at the
   * session's end). Returns the note for the command's output, or ''.
   */
  settle(options: { everywhere?: boolean; written?: readonly string[] } = {}): string {
    const removed: string[] = [];
    for (const { target, baseline } of this.bound) {
      const written = (options.written ?? []).filter((file) => isWithin(file, target)).map((file) => path.join(baseline.workspace, path.posix.relative(target, file)));
      try {
        removed.push(...disarmPackageConfigs(baseline, { everywhere: options.everywhere ?? false, written }).map((file) => path.join(baseline.workspace, file)));
      } catch (error) {
        removed.push(`(could not check ${baseline.workspace}: ${error instanceof Error ? error.message : String(error)})`);
      }
    }
    return removed.length
      ? `\n[hermes-temporal: removed from the package manager configs of a host folder mounted into the container what npm, npx or yarn would run or load on the host: ${removed.join(', ')}]`
      : '';
  }
}

function parse(recorded: unknown): BoundBaseline[] {
  if (typeof recorded !== 'string') return [];
  try {
    const parsed = JSON.parse(recorded) as unknown;
    return Array.isArray(parsed) ? (parsed as BoundBaseline[]) : [];
  } catch {
    return [];
  }
}
