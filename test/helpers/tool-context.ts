// A ToolContext for unit tests: local workspace and local terminal backend rooted at `cwd`,
// an AbortSignal nobody aborts, a no-op heartbeat and the default settings.
import os from 'node:os';
import { LocalEnvironment } from '../../src/environments/local-environment';
import { LocalWorkspace } from '../../src/environments/local-workspace';
import { DEFAULT_TOOL_SETTINGS, type ToolContext } from '../../src/registry/tool-entry';

export function createToolContext(cwd: string = os.tmpdir(), overrides: Partial<ToolContext> = {}): ToolContext {
  return {
    sessionId: 's',
    toolCallId: 'c',
    taskId: 't',
    workspace: new LocalWorkspace(cwd),
    environment: new LocalEnvironment({ backend: 'local', cwd }),
    signal: new AbortController().signal,
    heartbeat: () => {},
    settings: DEFAULT_TOOL_SETTINGS,
    ...overrides,
  };
}
