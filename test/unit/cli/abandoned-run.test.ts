import { recordAbandoned } from '../../../src/cli/abandoned-run';
import { SqliteSessionStore } from '../../../src/store/sqlite-session-store';

const REASON = 'Abandoned: its server went away';

async function storeWith(sessions: { id: string; parent?: string; status: string }[]): Promise<SqliteSessionStore> {
  const store = new SqliteSessionStore(':memory:');
  for (const { id, parent, status } of sessions) {
    await store.createSession({ sessionId: id, workflowId: `w-${id}`, task: 't', model: 'm', cwd: '/', toolNames: [], status, ...(parent ? { parentSessionId: parent } : {}) });
  }
  return store;
}

async function statuses(store: SqliteSessionStore): Promise<Record<string, string>> {
  return Object.fromEntries((await store.listSessions({ limit: 100 })).map((session) => [session.sessionId, session.status]));
}

test('an abandoned run records its session and every open sub-agent below it, at any depth', async () => {
  const store = await storeWith([
    { id: 'root', status: 'running' },
    { id: 'root-sa0', parent: 'root', status: 'running' },
    { id: 'root-sa0-sa0', parent: 'root-sa0', status: 'awaiting_approval' },
    { id: 'other', status: 'running' },
  ]);
  await recordAbandoned(store, 'root', REASON);
  expect(await statuses(store)).toEqual({ root: 'abandoned', 'root-sa0': 'abandoned', 'root-sa0-sa0': 'abandoned', other: 'running' });
  expect((await store.getSession('root-sa0-sa0'))?.error).toBe(REASON);
  await store.close();
});

test('a session or sub-agent that already ended keeps what it recorded', async () => {
  const store = await storeWith([
    { id: 'root', status: 'cancelled' },
    { id: 'root-sa0', parent: 'root', status: 'completed' },
    { id: 'root-sa1', parent: 'root', status: 'running' },
  ]);
  await recordAbandoned(store, 'root', REASON);
  expect(await statuses(store)).toEqual({ root: 'cancelled', 'root-sa0': 'completed', 'root-sa1': 'abandoned' });
  expect((await store.getSession('root'))?.error).toBeUndefined();
  await store.close();
});

test('a root older than the recent sessions listed is still recorded', async () => {
  const store = await storeWith([{ id: 'old', status: 'running' }, ...Array.from({ length: 1000 }, (_, i) => ({ id: `later-${i}`, status: 'completed' }))]);
  await recordAbandoned(store, 'old', REASON);
  expect((await store.getSession('old'))?.status).toBe('abandoned');
  await store.close();
});
