// Which session store a configuration gets: SQLite at store.path unless store.postgres_url (or
// HERMES_STORE_POSTGRES_URL) names a PostgreSQL database. Nothing here connects to PostgreSQL.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../../src/config/load';
import { createSessionStore, describeSessionStore } from '../../../src/store/create-session-store';
import { PostgresSessionStore } from '../../../src/store/postgres-session-store';
import { SqliteSessionStore } from '../../../src/store/sqlite-session-store';

let home: string;
beforeEach(() => {
  home = mkdtempSync(path.join(os.tmpdir(), 'hermes-home-'));
});
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

const load = (env: Record<string, string> = {}) => loadConfig({ env: { HERMES_TEMPORAL_HOME: home, ...env }, projectDir: home });

it('gives the SQLite store at store.path by default', async () => {
  const config = load();
  const store = createSessionStore(config);
  try {
    expect(store).toBeInstanceOf(SqliteSessionStore);
    expect((store as SqliteSessionStore).file).toBe(path.join(home, 'sessions.db'));
    expect(describeSessionStore(config)).toBe(path.join(home, 'sessions.db'));
  } finally {
    await store.close();
  }
});

it('gives the Postgres store when HERMES_STORE_POSTGRES_URL is set, and never shows its password', async () => {
  const config = load({ HERMES_STORE_POSTGRES_URL: 'postgres://hermes:s3cret@db.internal:5432/hermes', HERMES__STORE__POSTGRES_POOL_SIZE: '4' });
  expect(config.store).toMatchObject({ postgres_url: 'postgres://hermes:s3cret@db.internal:5432/hermes', postgres_pool_size: 4 });
  const store = createSessionStore(config);
  try {
    expect(store).toBeInstanceOf(PostgresSessionStore);
    expect(describeSessionStore(config)).toBe('postgres://hermes:***@db.internal:5432/hermes');
  } finally {
    await store.close();
  }
});

it('refuses a store.postgres_url that is not a postgres URL, naming where it came from', () => {
  expect(() => load({ HERMES_STORE_POSTGRES_URL: '/var/lib/hermes/sessions.db' })).toThrow(
    /store\.postgres_url: must be a postgres:\/\/ or postgresql:\/\/ URL \(from environment\)/,
  );
});
