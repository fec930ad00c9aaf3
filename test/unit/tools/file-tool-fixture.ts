// A real temporary workspace and tool context for the file tool tests; tools run through the
// process registry so argument validation is exercised as in production.
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { LocalEnvironment } from '../../../src/environments/local-environment';
import { LocalWorkspace } from '../../../src/environments/local-workspace';
import { registry } from '../../../src/registry/registry';
import { DEFAULT_TOOL_SETTINGS, type ToolContext } from '../../../src/registry/tool-entry';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary fields of a tool's JSON result
export type ToolResultJson = Record<string, any>;

export interface FileToolFixture {
  dir: string;
  context: ToolContext;
  /** Dispatches a tool and parses its JSON result. */
  call(name: string, args: Record<string, unknown>): Promise<ToolResultJson>;
  /** Writes a file (relative to the workspace), creating parent directories. */
  put(relative: string, content: string | Buffer): Promise<string>;
  read(relative: string): Promise<string>;
  cleanup(): Promise<void>;
}

export async function createFileToolFixture(): Promise<FileToolFixture> {
  const dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'hermes-file-tools-')));
  const workspace = new LocalWorkspace(dir);
  const context: ToolContext = {
    sessionId: 's',
    toolCallId: 'c',
    taskId: 't',
    workspace,
    environment: new LocalEnvironment({ backend: 'local', cwd: dir }),
    signal: new AbortController().signal,
    heartbeat: () => {},
    settings: DEFAULT_TOOL_SETTINGS,
  };
  return {
    dir,
    context,
    call: async (name, args) => JSON.parse(await registry.dispatch(name, args, context)) as ToolResultJson,
    put: async (relative, content) => {
      const absolute = path.join(dir, relative);
      await mkdir(path.dirname(absolute), { recursive: true });
      await writeFile(absolute, content);
      return absolute;
    },
    read: (relative) => readFile(path.join(dir, relative), 'utf8'),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}
