// The memory a worker serves, from its configuration: rows in the session store's database when
// that store is shared (PostgreSQL), else files under the hermes home (which the local sandbox
// hides from commands, and the approval gate treats as secret).
import path from 'node:path';
import type { LoadedConfig } from '../config/load';
import { MemoryFiles } from '../store/memory-files';
import type { SessionStore } from '../store/session-store';
import { MemoryStore } from './memory-store';

type MemoryConfig = Pick<LoadedConfig, 'home' | 'memory'>;

export function memoryDirectory(config: Pick<LoadedConfig, 'home'>): string {
  return path.join(config.home, 'memories');
}

/** Undefined when both documents are disabled: the tool then answers that memory is not available. */
export function createMemoryStore(config: MemoryConfig, store: SessionStore): MemoryStore | undefined {
  const { memory } = config;
  if (!memory.memory_enabled && !memory.user_profile_enabled) return undefined;
  const documents = store.memoryDocuments?.() ?? new MemoryFiles(memoryDirectory(config));
  return new MemoryStore(documents, {
    memoryEnabled: memory.memory_enabled,
    userProfileEnabled: memory.user_profile_enabled,
    memoryCharLimit: memory.memory_char_limit,
    userCharLimit: memory.user_char_limit,
  });
}
