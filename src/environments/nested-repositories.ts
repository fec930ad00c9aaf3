// The repositories nested in a local session's workspace when it started, recorded in its handle:
// each command guards them like the workspace's own, and the session's end disarms the ones that
// appeared since.
import { findNestedRepositories } from './git-repositories';
import type { EnvironmentHandle } from './terminal-environment';

export function withNestedRepositories(handle: EnvironmentHandle): EnvironmentHandle {
  const workspace = handle.details?.workspace;
  if (handle.backend !== 'local' || typeof workspace !== 'string' || typeof handle.details?.nestedRepositories === 'string') return handle;
  const { workTrees, complete } = findNestedRepositories(workspace);
  const details = { nestedRepositories: workTrees.join('\n'), nestedRepositoriesComplete: complete, nestedRepositoriesSince: Date.now() };
  return { ...handle, details: { ...handle.details, ...details } };
}

export function nestedRepositoriesOf(handle: EnvironmentHandle): { workTrees: string[]; complete: boolean; since: number } | undefined {
  const recorded = handle.details?.nestedRepositories;
  if (typeof recorded !== 'string') return undefined;
  const since = handle.details?.nestedRepositoriesSince;
  return {
    workTrees: recorded.split('\n').filter(Boolean),
    complete: handle.details?.nestedRepositoriesComplete === true,
    since: typeof since === 'number' ? since : Number.POSITIVE_INFINITY,
  };
}
