// The worker's own folders in the host's temporary folder: every session's background process
// files, running commands' pid files and logs, saved tool output, live sessions' workspaces, MCP media, and the sandbox's
// seccomp filter and empty folder. Commands get a private temporary folder, so they never see
// these, unless the session's workspace is the temporary folder itself (or holds it): then the
// sandbox hides them as it hides the hermes home, and file tools ask before writing them.
import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Each session's background processes (`<name>/<session key>/proc_*`). */
export const BACKGROUND_FOLDER = 'hermes-bg';
/** Running commands' process-group ids and logs, for a later worker. */
export const COMMAND_FILES_FOLDER = 'hermes-commands';
/** Tool output too large for the model, saved per session. */
export const SAVED_RESULTS_FOLDER = 'hermes-results';
/** The workspace each live local session works in (live-workspaces.ts). */
export const LIVE_WORKSPACES_FOLDER = 'hermes-workspaces';
/** Pictures and sounds MCP servers returned. */
export const MCP_MEDIA_FOLDER = 'hermes-mcp-media';

/** The sandbox's own files (seccomp filter, empty folder): one folder per user, another's being not ours to write. */
export function sandboxFilesFolderName(): string {
  return `hermes-sandbox-${process.getuid?.() ?? 'user'}`;
}

/** The worker's folders in the temporary folder, as absolute paths (read each time: TMPDIR may change). */
export function runtimeTemporaryFolders(): string[] {
  return [BACKGROUND_FOLDER, COMMAND_FILES_FOLDER, SAVED_RESULTS_FOLDER, LIVE_WORKSPACES_FOLDER, MCP_MEDIA_FOLDER, sandboxFilesFolderName()].map((name) => path.join(os.tmpdir(), name));
}

/**
 * Makes the folders that do not exist yet, owner-only: a command of a session whose workspace
 * shows them must not be the first to make one (a link of its own in the worker's way).
 */
export function ensureRuntimeTemporaryFolders(): void {
  for (const folder of runtimeTemporaryFolders()) {
    try {
      mkdirSync(folder, { recursive: true, mode: 0o700 });
    } catch {
      // A file in its way: realpath finds it and it is hidden as it is.
    }
  }
}
