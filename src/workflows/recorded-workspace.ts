// Where a local session's commands may write: the folder it started in, recorded in its
// environment handle. Pure: the workflow applies it to the handles it keeps, the driver on start.
import type { EnvironmentHandle } from '../environments/terminal-environment';

/** The folder a local session's commands may write, as recorded when the session started. */
export function recordedWorkspace(handle: EnvironmentHandle): string | undefined {
  const workspace = handle.details?.workspace;
  return typeof workspace === 'string' ? workspace : undefined;
}

/**
 * A local handle with its workspace recorded (`startedIn` unless one already is). The sandbox
 * takes the handle's current cwd when none is recorded, and the cwd follows `cd`: without this,
 * `cd ..` and then any command, or a sub-agent started after its parent's `cd`, could write
 * outside the workspace. Pure: the workflow applies it to the handles it keeps.
 */
export function withRecordedWorkspace(handle: EnvironmentHandle, startedIn: string = handle.cwd): EnvironmentHandle {
  if (handle.backend !== 'local' || recordedWorkspace(handle) !== undefined) return handle;
  return { ...handle, details: { ...handle.details, workspace: startedIn } };
}
