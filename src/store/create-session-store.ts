// Picks the session store a configuration asks for: PostgreSQL when `store.postgres_url` is set
// (workers on several machines), else the SQLite file at `store.path`.
import type { LoadedConfig } from '../config/load';
import { PostgresSessionStore } from './postgres-session-store';
import type { SessionStore } from './session-store';
import { SqliteSessionStore } from './sqlite-session-store';

type StoreConfig = Pick<LoadedConfig, 'store'>;

export function createSessionStore(config: StoreConfig): SessionStore {
  const { postgres_url: connectionString, postgres_pool_size: poolSize } = config.store;
  if (connectionString) return new PostgresSessionStore({ connectionString, ...(poolSize ? { poolSize } : {}) });
  return new SqliteSessionStore(config.store.path);
}

/** Where the store is, for logs and messages: the SQLite path, or the Postgres URL without its password. */
export function describeSessionStore(config: StoreConfig): string {
  const url = config.store.postgres_url;
  if (!url) return config.store.path;
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'postgres (unparseable URL)';
  }
}
