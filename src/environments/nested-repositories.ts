// The repositories nested in a local session's workspace before its first command, recorded in the
// session's worker-side state folder (out of the sandbox's reach, like the unguarded marker): each
// command guards them like the workspace's own, and the session's end disarms those that appeared
// since. A session that moves to another worker is looked at again there.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { findNestedRepositories } from './git-repositories';

export interface NestedRepositories {
  /** Relative to the workspace. */
  workTrees: string[];
  /** Whether the bounded look saw the whole workspace. */
  complete: boolean;
  /** When the look was made (ms since the epoch). */
  since: number;
}

const RECORD = 'nested-repositories.json';

/** The record, made now if this worker has none yet. */
export function nestedRepositoriesRecord(stateDir: string, workspace: string): NestedRepositories {
  const recorded = readNestedRepositories(stateDir);
  if (recorded) return recorded;
  const since = Date.now();
  const record = { ...findNestedRepositories(workspace), since };
  try {
    mkdirSync(stateDir, { recursive: true });
    writeFileSync(path.join(stateDir, RECORD), JSON.stringify(record));
  } catch {
    // Looked at again by the next command.
  }
  return record;
}

export function readNestedRepositories(stateDir: string): NestedRepositories | undefined {
  try {
    const parsed = JSON.parse(readFileSync(path.join(stateDir, RECORD), 'utf8')) as Partial<NestedRepositories>;
    if (!Array.isArray(parsed.workTrees) || typeof parsed.since !== 'number') return undefined;
    return { workTrees: parsed.workTrees.filter((entry): entry is string => typeof entry === 'string'), complete: parsed.complete === true, since: parsed.since };
  } catch {
    return undefined;
  }
}
