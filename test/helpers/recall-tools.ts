// Calls the memory and session_search tools as a session on a worker would: through the process
// registry (argument validation included), with the worker's services in the tool context.
import '../../src/tools/memory';
import '../../src/tools/session-search';
import { createMemoryStore } from '../../src/memory/create-memory-store';
import { DEFAULT_MEMORY_SETTINGS, type MemorySettings } from '../../src/memory/memory-store';
import { registry } from '../../src/registry/registry';
import type { RecallScope } from '../../src/registry/tool-entry';
import type { SessionStore } from '../../src/store/session-store';
import { createToolContext } from './tool-context';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary fields of a tool's JSON result
export type ToolAnswer = Record<string, any>;

export interface RecallWorker {
  store: SessionStore;
  /** Runs a tool for a session; the result string parsed. */
  call(tool: 'memory' | 'session_search', args: Record<string, unknown>, sessionId?: string): Promise<ToolAnswer>;
  /** The raw result string. */
  callRaw(tool: 'memory' | 'session_search', args: Record<string, unknown>, sessionId?: string): Promise<string>;
  /** The memory blocks a session started now would get. */
  snapshot(): Promise<string>;
}

/**
 * A worker's view: its session store, and memory in that store (Postgres) or under `home` (files).
 * Sessions the store has no record of (the
 * tests' "current-session") may recall every session, as `session_search.scope: all` lets them;
 * with `scope: 'workspace'` (the worker's default) a session needs its record, for its folder.
 */
export function recallWorker(store: SessionStore, home: string, settings: Partial<MemorySettings> = {}, scope: RecallScope = 'all'): RecallWorker {
  const merged = { ...DEFAULT_MEMORY_SETTINGS, ...settings };
  const memory = createMemoryStore(
    {
      home,
      memory: {
        memory_enabled: merged.memoryEnabled,
        user_profile_enabled: merged.userProfileEnabled,
        memory_char_limit: merged.memoryCharLimit,
        user_char_limit: merged.userCharLimit,
      },
    },
    store,
  );
  const callRaw = (tool: string, args: Record<string, unknown>, sessionId = 'current-session') =>
    registry.dispatch(tool, args, createToolContext(undefined, { sessionId, services: { sessions: store, recallScope: scope, ...(memory ? { memory } : {}) } }));
  return {
    store,
    callRaw,
    call: async (tool, args, sessionId) => JSON.parse(await callRaw(tool, args, sessionId)) as ToolAnswer,
    snapshot: async () => (memory ? memory.snapshot() : ''),
  };
}
