// Where the two memory documents (MEMORY.md, USER.md) live: files under the hermes home with a
// SQLite store, rows with a PostgreSQL store, so every worker sharing a store shares the memory.

export type MemoryTarget = 'memory' | 'user';

/** What a read-modify-write decided: the new text to keep, if any, and what to answer. */
export interface MemoryChange<T> {
  write?: string;
  result: T;
}

export interface MemoryDocuments {
  /** The document's text ('' when it was never written). */
  read(target: MemoryTarget): Promise<string>;
  /**
   * Reads the document, lets `change` decide, and keeps what it returns, all under one lock, so
   * two sessions (or two workers) writing at once never lose a write. `backup` saves the text as
   * read (for the drift guard) and says where it went.
   */
  update<T>(target: MemoryTarget, change: (text: string, backup: () => Promise<string>) => MemoryChange<T> | Promise<MemoryChange<T>>): Promise<T>;
}

export const MEMORY_FILE_NAMES: Record<MemoryTarget, string> = { memory: 'MEMORY.md', user: 'USER.md' };
