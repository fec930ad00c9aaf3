// The PostgreSQL session store: the same contract as SQLite, plus what several worker machines
// rely on (each with its own pool): shared writes, one winner per (session, seq), schema creation
// racing at start-up, and a whole session served by two workers on one task queue.
// Needs scripts/services/postgres.sh start (HERMES_TEST_POSTGRES_URL).
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { NativeConnection } from '@temporalio/worker';
import { Pool } from 'pg';
import { createMemoryStore } from '../../../src/memory/create-memory-store';
import { startScriptedModelServer } from '../../../src/model/scripted-model-server';
import { createSessionStore } from '../../../src/store/create-session-store';
import { PostgresSessionStore } from '../../../src/store/postgres-session-store';
import type { NewMessage, NewSession, SessionStore, SessionUpdate } from '../../../src/store/session-store';
import { startSession } from '../../../src/temporal/sessions';
import { describeWithService } from '../../helpers/services';
import { connectHarness, createTestWorker, sessionIdOf, testConfig, type Harness } from '../../helpers/session-harness';
import { describeRecallContract } from '../../helpers/recall-contract';
import { describeSessionStoreContract, message, session } from '../../helpers/session-store-contract';
import { tempDir } from '../../helpers/session-harness';

describeWithService('postgres', ['HERMES_TEST_POSTGRES_URL'], 'PostgreSQL session store', (env) => {
  const url = env.HERMES_TEST_POSTGRES_URL!;
  let admin: Pool;
  const schemas: string[] = [];
  const freshSchema = () => {
    const schema = `hermes_test_${process.pid}_${randomBytes(4).toString('hex')}`;
    schemas.push(schema);
    return schema;
  };
  const dropSchema = async (schema: string) => {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  };
  const opened: SessionStore[] = [];
  const open = (schema: string, poolSize = 4) => {
    const store = new PostgresSessionStore({ connectionString: url, schema, poolSize });
    opened.push(store);
    return store;
  };

  beforeAll(() => {
    admin = new Pool({ connectionString: url, max: 2 });
  });
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    for (const schema of schemas.splice(0)) await dropSchema(schema);
  });
  afterAll(async () => {
    await admin.end();
  });

  describeSessionStoreContract('the store contract', () => {
    const schema = freshSchema();
    return {
      open: () => new PostgresSessionStore({ connectionString: url, schema, poolSize: 4 }),
      dispose: () => dropSchema(schema),
    };
  });

  // Memory lives in the database here: the home folder given must stay unused.
  describeRecallContract('memory and session_search', () => {
    const schema = freshSchema();
    return {
      home: tempDir('hermes-pg-recall-home-'),
      open: () => new PostgresSessionStore({ connectionString: url, schema, poolSize: 4 }),
      dispose: () => dropSchema(schema),
    };
  });

  it("keeps a message's sensitive mark, and never finds a sensitive message in a search", async () => {
    const store = open(freshSchema());
    await store.createSession(session('a'));
    // A sibling result of the same turn, stored first, did not come after the secret: it is found.
    await store.appendMessage('a', message(2, { role: 'tool', content: 'STRIPE_LIVE is documented in notes.md', toolCallId: 'c2', name: 'read_file' }));
    await store.appendMessage('a', message(1, { role: 'tool', content: 'STRIPE_LIVE=sk_live_canary', toolCallId: 'c1', name: 'read_file', sensitive: true }));
    expect(await store.getMessage('a', 1)).toMatchObject({ sensitive: true });
    expect(await store.getMessage('a', 2)).not.toHaveProperty('sensitive');
    const hits = await store.searchMessages({ query: 'STRIPE_LIVE', roles: ['tool'], limit: 10 });
    expect(hits.map((hit) => hit.seq)).toEqual([2]);
  });

  it('withholds, once, what followed a withheld message in a database written before that was carried on', async () => {
    const schema = freshSchema();
    const first = open(schema);
    await first.createSession(session('old'));
    await first.appendMessage('old', message(1, { role: 'tool', content: 'KEY=sk_live_old_canary', toolCallId: 'c1', name: 'read_file', sensitive: true }));
    await first.appendMessage('old', message(2, { role: 'assistant', content: 'the key is sk_live_old_canary' }));
    // As an older release left it: no index, and the reply not marked.
    await admin.query(`DROP INDEX "${schema}".hermes_messages_withheld`);
    await admin.query(`UPDATE "${schema}".hermes_messages SET sensitive = false WHERE seq = 2`);
    const store = open(schema);
    expect(await store.getMessage('old', 2)).toMatchObject({ sensitive: true });
    expect(await store.searchMessages({ query: 'key', roles: ['assistant'], limit: 10 })).toEqual([]);
  });

  it('keeps memory in the database, not in files under the home folder', async () => {
    const schema = freshSchema();
    const home = tempDir('hermes-pg-home-');
    const store = open(schema);
    const memory = createMemoryStore({ home, memory: { memory_enabled: true, user_profile_enabled: true, memory_char_limit: 2200, user_char_limit: 1375 } }, store);
    await memory!.add('user', 'Name: Ada');
    const rows = await admin.query<{ name: string; content: string }>(`SELECT name, content FROM "${schema}".hermes_memories ORDER BY name`);
    expect(rows.rows).toEqual([{ name: 'user', content: 'Name: Ada' }]);
    expect(existsSync(path.join(home, 'memories'))).toBe(false);
  });

  it("gives two workers' stores (two pools) each other's writes, and one message per (session, seq) when they race", async () => {
    const schema = freshSchema();
    const [first, second] = [open(schema), open(schema)];
    const [sessionA, sessionB] = await Promise.all([
      first.createSession(session('s1', { task: 'from the first worker' })),
      second.createSession(session('s1', { task: 'from the second worker' })),
    ]);
    expect(sessionB).toEqual(sessionA);

    const seqs = Array.from({ length: 25 }, (_, seq) => seq);
    const results = await Promise.all(
      seqs.flatMap((seq) => [
        first.appendMessage('s1', message(seq, { content: `first ${seq}` })),
        second.appendMessage('s1', message(seq, { content: `second ${seq}` })),
      ]),
    );
    const stored = await open(schema).getMessages('s1');
    expect(stored.map((m) => m.seq)).toEqual(seqs);
    for (const seq of seqs) {
      // Both writers were told the same, stored, message.
      expect(results[2 * seq]).toEqual(stored[seq]);
      expect(results[2 * seq + 1]).toEqual(stored[seq]);
      expect([`first ${seq}`, `second ${seq}`]).toContain(stored[seq]!.content);
    }
    await second.updateSession('s1', { status: 'completed', answer: 'done' });
    expect(await first.getSession('s1')).toMatchObject({ status: 'completed', answer: 'done' });
  });

  it('creates its schema once when several workers start at the same moment', async () => {
    const schema = freshSchema();
    const stores = Array.from({ length: 8 }, () => open(schema, 2));
    // Each store's first call creates the schema, all at once, each over its own pool.
    await Promise.all(stores.map((store, index) => store.createSession(session(`s${index}`))));
    expect((await stores[0]!.listSessions()).map((s) => s.sessionId).sort()).toEqual(stores.map((_, index) => `s${index}`).sort());
    const tables = await admin.query<{ table_name: string }>(
      'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name',
      [schema],
    );
    expect(tables.rows.map((row) => row.table_name)).toEqual(['hermes_memories', 'hermes_messages', 'hermes_sessions', 'hermes_tool_listings']);
  });

  it('stores JSONB tool calls and tool names, and timestamptz times returned as ISO strings', async () => {
    const schema = freshSchema();
    const store = open(schema);
    await store.createSession(session('s1'));
    const toolCalls = [{ id: 'call_1', name: 'terminal', arguments: '{"command": "ls"' }];
    const appended = await store.appendMessage('s1', { seq: 0, role: 'assistant', content: null, toolCalls });
    expect(appended.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const columns = await admin.query<{ table_name: string; column_name: string; data_type: string }>(
      `SELECT table_name, column_name, data_type FROM information_schema.columns
        WHERE table_schema = $1 AND column_name IN ('tool_names', 'tool_calls', 'created_at', 'updated_at')
        ORDER BY table_name, column_name`,
      [schema],
    );
    expect(columns.rows.map((row) => `${row.table_name}.${row.column_name}: ${row.data_type}`)).toEqual([
      'hermes_memories.updated_at: timestamp with time zone',
      'hermes_messages.created_at: timestamp with time zone',
      'hermes_messages.tool_calls: jsonb',
      'hermes_sessions.created_at: timestamp with time zone',
      'hermes_sessions.tool_names: jsonb',
      'hermes_sessions.updated_at: timestamp with time zone',
      'hermes_tool_listings.created_at: timestamp with time zone',
    ]);
    const raw = await admin.query<{ name: string }>(`SELECT tool_calls -> 0 ->> 'name' AS name FROM "${schema}".hermes_messages`);
    expect(raw.rows).toEqual([{ name: 'terminal' }]);
  });

  it('stores a NUL character (which PostgreSQL text refuses) as U+FFFD instead of failing the write', async () => {
    const store = open(freshSchema());
    await store.createSession(session('s1', { task: 'a\u0000b' }));
    const stored = await store.appendMessage('s1', {
      seq: 0,
      role: 'assistant',
      content: 'x\u0000y',
      toolCalls: [{ id: 'call_1', name: 'terminal', arguments: '{"command":"printf \u0000"}' }],
    });
    expect(stored.content).toBe('x\uFFFDy');
    expect(stored.toolCalls![0]!.arguments).toBe('{"command":"printf \uFFFD"}');
    expect((await store.getSession('s1'))!.task).toBe('a\uFFFDb');
  });

  it('fails a call quickly when the database cannot be reached', async () => {
    const unreachable = new URL(url);
    unreachable.port = '1';
    const store = new PostgresSessionStore({ connectionString: unreachable.toString(), connectTimeoutMs: 2000 });
    opened.push(store);
    await expect(store.getSession('s1')).rejects.toThrow(/ECONNREFUSED|connect/);
  });

  describe('a session on two workers', () => {
    let harness: Harness;
    beforeAll(async () => {
      harness = await connectHarness();
    });
    afterAll(async () => {
      await harness.close();
    });

    it('two workers on one task queue, sharing PostgreSQL, leave one complete and contiguous transcript', async () => {
      const turns = 4;
      const script = {
        turns: [
          ...Array.from({ length: turns }, (_, turn) => ({
            tool_calls: [0, 1].map((call) => ({ name: 'terminal', arguments: { command: `sleep 0.3; echo turn-${turn}-${call}` } })),
          })),
          { content: 'all turns done' },
        ],
      };
      const model = await startScriptedModelServer({ script });
      // One activity at a time per worker: the two parallel tool calls of a turn need both workers.
      const config = testConfig({ store: { postgres_url: url, postgres_pool_size: 3 }, model: { base_url: model.url }, worker: { max_concurrent_activities: 1 } });
      const stores = [new CountingStore(createSessionStore(config)), new CountingStore(createSessionStore(config))] as const;
      // A connection of its own, as on another machine (one connection serves one worker per task queue).
      const otherMachine = await NativeConnection.connect({ address: harness.address });
      try {
        const first = await createTestWorker(harness, config, stores[0]);
        const second = await createTestWorker({ ...harness, nativeConnection: otherMachine }, config, stores[1]);
        const handle = await startSession(harness.client, { task: 'run commands over several turns', config });
        const result = await first.worker.runUntil(second.worker.runUntil(handle.result()));
        expect(result).toMatchObject({ status: 'completed', answer: 'all turns done', turns: turns + 1, toolCalls: 2 * turns });
        // Both workers wrote to the transcript.
        expect(stores[0].appends).toBeGreaterThan(0);
        expect(stores[1].appends).toBeGreaterThan(0);

        // Read back through a third store, as the CLI on another machine would.
        const reader = createSessionStore(config);
        opened.push(reader);
        const sessionId = sessionIdOf(handle);
        const messages = await reader.getMessages(sessionId);
        expect(messages.map((m) => m.seq)).toEqual(messages.map((_, index) => index));
        const perTurn = ['assistant', 'tool', 'tool'];
        expect(messages.map((m) => m.role)).toEqual(['system', 'user', ...Array.from({ length: turns }, () => perTurn).flat(), 'assistant']);
        for (let turn = 0; turn < turns; turn += 1) {
          const [assistant, ...results] = messages.slice(2 + 3 * turn, 5 + 3 * turn);
          expect(results.map((m) => m.toolCallId)).toEqual(assistant!.toolCalls!.map((call) => call.id));
          expect(results.map((m) => (JSON.parse(m.content ?? '{}') as { output?: string }).output)).toEqual([
            `turn-${turn}-0`,
            `turn-${turn}-1`,
          ]);
        }
        expect(messages.at(-1)).toMatchObject({ role: 'assistant', content: 'all turns done' });
        expect(await reader.getSession(sessionId)).toMatchObject({ status: 'completed', answer: 'all turns done' });
      } finally {
        await model.close();
        for (const store of stores) await store.close();
        await otherMachine.close();
      }
    });
  });
});

/** A worker's store that counts the messages it appended. */
class CountingStore implements SessionStore {
  appends = 0;
  constructor(private readonly inner: SessionStore) {}
  createSession = (value: NewSession) => this.inner.createSession(value);
  getSession = (sessionId: string) => this.inner.getSession(sessionId);
  updateSession = (sessionId: string, update: SessionUpdate) => this.inner.updateSession(sessionId, update);
  listSessions = (options?: { limit?: number }) => this.inner.listSessions(options);
  appendMessage = (sessionId: string, value: NewMessage) => {
    this.appends += 1;
    return this.inner.appendMessage(sessionId, value);
  };
  getMessage = (sessionId: string, seq: number) => this.inner.getMessage(sessionId, seq);
  getMessages = (sessionId: string, options?: { fromSeq?: number; limit?: number }) => this.inner.getMessages(sessionId, options);
  saveToolListing = (digest: string, listing: string) => this.inner.saveToolListing(digest, listing);
  getToolListing = (digest: string) => this.inner.getToolListing(digest);
  close = () => this.inner.close();
}
