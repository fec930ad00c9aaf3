// The SQLite session store: the store contract on a file (in a directory it creates), shared by
// every process that opens the same file, plus what only a file-based store does.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SqliteSessionStore } from '../../../src/store/sqlite-session-store';
import { describeSessionStoreContract, message, session } from '../../helpers/session-store-contract';

describeSessionStoreContract('SQLite session store', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hermes-store-'));
  const file = path.join(dir, 'nested', 'sessions.db');
  return {
    open: () => new SqliteSessionStore(file),
    dispose: async () => rmSync(dir, { recursive: true, force: true }),
  };
});

describe('SQLite session store on its own', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'hermes-store-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates the directories of its file', async () => {
    const file = path.join(dir, 'a', 'b', 'sessions.db');
    const store = new SqliteSessionStore(file);
    await store.createSession(session('s1'));
    await store.appendMessage('s1', message(0));
    await store.close();
    expect(existsSync(file)).toBe(true);
  });

  it('works in memory without a file', async () => {
    const store = new SqliteSessionStore(':memory:');
    try {
      await store.createSession(session('s1'));
      expect((await store.listSessions()).map((s) => s.sessionId)).toEqual(['s1']);
    } finally {
      await store.close();
    }
  });
});
