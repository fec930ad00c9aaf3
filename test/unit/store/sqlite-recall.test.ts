// memory and session_search on the default store: SQLite (FTS5) with memory files under the home.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { SqliteSessionStore } from '../../../src/store/sqlite-session-store';
import { describeRecallContract, pastSession } from '../../helpers/recall-contract';
import { recallWorker } from '../../helpers/recall-tools';

describeRecallContract('SQLite store, memory files', () => {
  const home = mkdtempSync(path.join(os.tmpdir(), 'hermes-recall-'));
  return { home, open: () => new SqliteSessionStore(path.join(home, 'sessions.db')), dispose: async () => rmSync(home, { recursive: true, force: true }) };
});

describe('the SQLite search index', () => {
  let home: string;
  beforeEach(() => {
    home = mkdtempSync(path.join(os.tmpdir(), 'hermes-fts-'));
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it('indexes the messages of a store made before search existed, once, when it is opened', async () => {
    const file = path.join(home, 'sessions.db');
    // The store as it was: the same tables, no index.
    const old = new SqliteSessionStore(file);
    await pastSession(old, 'before-upgrade', ['migrate the billing database']);
    await old.close();
    const raw = new Database(file);
    raw.exec('DROP TRIGGER messages_fts_insert; DROP TRIGGER messages_fts_delete; DROP TABLE messages_fts;');
    raw.close();

    const [upgraded, again] = [new SqliteSessionStore(file), new SqliteSessionStore(file)];
    const answer = await recallWorker(upgraded, home).call('session_search', { query: 'billing' });
    expect(answer.results.map((result: { session_id: string }) => result.session_id)).toEqual(['before-upgrade']);
    expect(await again.searchMessages({ query: 'billing', roles: ['user'], limit: 10 })).toHaveLength(1);
    await Promise.all([upgraded.close(), again.close()]);
  });

  it('refuses queries whose prefix terms would hold the worker for seconds, and still runs modest ones', async () => {
    const store = new SqliteSessionStore(':memory:');
    // 4,000 messages of 50 words drawn from 5,000 distinct ones.
    const words = Array.from({ length: 5000 }, (_, index) => `w${index.toString(36)}`);
    const lines = Array.from({ length: 4000 }, (_, line) => Array.from({ length: 50 }, (_, word) => words[(line * 7 + word * 13) % words.length]).join(' '));
    await pastSession(store, 'chatty', lines);
    const worker = recallWorker(store, home);
    const hostile = [
      Array.from({ length: 20 }, () => 'w*').join(' OR '),
      Array.from({ length: 4 }, (_, index) => `w${index}*`).join(' OR '),
      Array.from({ length: 13 }, (_, index) => words[index]).join(' OR '),
      'w1 '.repeat(200),
    ];
    for (const query of hostile) {
      const started = Date.now();
      const answer = await worker.call('session_search', { query });
      expect(answer.success).toBe(false);
      expect(String(answer.error)).toMatch(/at most|too short/);
      expect(Date.now() - started).toBeLessThan(200);
    }
    const modest = await worker.call('session_search', { query: 'w1a* OR w2b* OR w3c* OR w10 OR w11' });
    expect(modest).toMatchObject({ success: true, count: 1 });
    await store.close();
  });

  it("never hands one session's approved secret read to another: not found, and withheld when read", async () => {
    const store = new SqliteSessionStore(':memory:');
    await pastSession(store, 'session-a', ['read the env file']);
    // A sibling result of the same turn, stored first, did not come after the secret: it is found.
    await store.appendMessage('session-a', { seq: 3, role: 'tool', content: 'STRIPE_LIVE is documented in notes.md', toolCallId: 'c2', name: 'read_file' });
    await store.appendMessage('session-a', { seq: 2, role: 'tool', content: 'STRIPE_LIVE=sk_live_canary', toolCallId: 'c1', name: 'read_file', sensitive: true });
    expect(await store.getMessage('session-a', 2)).toMatchObject({ sensitive: true });
    expect(await store.getMessage('session-a', 3)).not.toHaveProperty('sensitive');
    const worker = recallWorker(store, home);
    const found = await worker.call('session_search', { query: 'STRIPE_LIVE', role_filter: 'tool' });
    expect(found.results.map((result: { match_message_id: number }) => result.match_message_id)).toEqual([3]);
    expect(JSON.stringify(found)).not.toContain('sk_live_canary');
    const read = await worker.call('session_search', { session_id: 'session-a' });
    expect(JSON.stringify(read)).not.toContain('sk_live_canary');
    expect(read.messages.find((message: { id: number }) => message.id === 2).content).toContain('withheld');
    await store.close();
  });

  it('withholds, once, what followed a withheld message in a store written before that was carried on', async () => {
    const file = path.join(home, 'sessions.db');
    const raw = new Database(file);
    raw.exec(`CREATE TABLE messages (session_id TEXT NOT NULL, seq INTEGER NOT NULL, role TEXT NOT NULL, content TEXT, tool_calls TEXT,
      tool_call_id TEXT, name TEXT, created_at TEXT NOT NULL, sensitive INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (session_id, seq))`);
    const insert = raw.prepare("INSERT INTO messages VALUES (?, ?, ?, ?, NULL, NULL, NULL, '2026-01-01T00:00:00Z', ?)");
    insert.run('old', 1, 'user', 'read the key', 0);
    insert.run('old', 2, 'tool', 'KEY=sk_live_old_canary', 1);
    insert.run('old', 3, 'assistant', 'the key is sk_live_old_canary', 0);
    insert.run('unrelated', 1, 'assistant', 'nothing secret', 0);
    raw.close();
    const store = new SqliteSessionStore(file);
    expect(await store.getMessage('old', 1)).not.toHaveProperty('sensitive');
    expect(await store.getMessage('old', 3)).toMatchObject({ sensitive: true });
    expect(await store.getMessage('unrelated', 1)).not.toHaveProperty('sensitive');
    await store.close();
  });

  it('adds the sensitive column to a store made before it existed', async () => {
    const file = path.join(home, 'sessions.db');
    const raw = new Database(file);
    raw.exec(`CREATE TABLE messages (session_id TEXT NOT NULL, seq INTEGER NOT NULL, role TEXT NOT NULL, content TEXT, tool_calls TEXT,
      tool_call_id TEXT, name TEXT, created_at TEXT NOT NULL, PRIMARY KEY (session_id, seq))`);
    raw.prepare("INSERT INTO messages VALUES ('old', 0, 'tool', 'from before', NULL, 'c', 'terminal', '2026-01-01T00:00:00Z')").run();
    raw.close();
    const store = new SqliteSessionStore(file);
    expect(await store.getMessage('old', 0)).not.toHaveProperty('sensitive');
    await store.appendMessage('old', { seq: 1, role: 'tool', content: 'secret', toolCallId: 'd', name: 'read_file', sensitive: true });
    expect(await store.getMessage('old', 1)).toMatchObject({ sensitive: true });
    await store.close();
  });

  it('reports FTS5 syntax errors as "Search failed" with SQLite\'s reason', async () => {
    const store = new SqliteSessionStore(':memory:');
    await pastSession(store, 'one', ['hello world']);
    expect(await recallWorker(store, home).call('session_search', { query: '"unbalanced' })).toEqual({
      error: 'Search failed: unterminated string',
      success: false,
    });
    await store.close();
  });

  it('searches tool output only when asked to', async () => {
    const store = new SqliteSessionStore(':memory:');
    await pastSession(store, 'tools', ['run the build']);
    await store.appendMessage('tools', { seq: 2, role: 'tool', content: 'compiler said: frobnicate failed', toolCallId: 'c1', name: 'terminal' });
    const worker = recallWorker(store, home);
    expect((await worker.call('session_search', { query: 'frobnicate' })).count).toBe(0);
    const answer = await worker.call('session_search', { query: 'frobnicate', role_filter: 'user,assistant,tool' });
    expect(answer.results[0]).toMatchObject({ matched_role: 'tool', match_message_id: 2 });
    expect(answer.results[0].messages.find((m: { anchor?: boolean }) => m.anchor)).toMatchObject({ role: 'tool', tool_name: 'terminal' });
    await store.close();
  });
});
