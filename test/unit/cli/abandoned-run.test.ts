import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { armAbandonWatch, processIdentity, recordAbandoned, settleOrphanedRuns } from '../../../src/cli/abandoned-run';
import { SqliteSessionStore } from '../../../src/store/sqlite-session-store';
import { tempDir } from '../../helpers/temp-dirs';

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

describe('runs that left no word (the machine restarted, or the run and its watcher were killed)', () => {
  const claim = (home: string, sessionId: string, owner: { pid: number; identity?: string }) => {
    mkdirSync(path.join(home, 'runs'), { recursive: true });
    writeFileSync(path.join(home, 'runs', `${sessionId}.json`), JSON.stringify({ sessionId, backend: 'docker', ...owner }));
  };
  const exitedPid = () => spawnSync('/bin/true').pid;

  test('a session whose run is gone is recorded abandoned, with its sub-agents, and its claim is removed', async () => {
    const home = tempDir('hermes-claims-');
    const store = await storeWith([
      { id: 'gone', status: 'running' },
      { id: 'gone-sa0', parent: 'gone', status: 'awaiting_approval' },
      { id: 'restarted', status: 'running' },
      { id: 'alive', status: 'running' },
    ]);
    claim(home, 'gone', { pid: exitedPid() });
    // This process's pid, but started in another boot: the pid was reused.
    claim(home, 'restarted', { pid: process.pid, identity: 'another-boot:1' });
    claim(home, 'alive', { pid: process.pid, identity: processIdentity(process.pid) });
    writeFileSync(path.join(home, 'runs', 'half-written.json'), '{"sessionId":');

    expect((await settleOrphanedRuns(home, store)).sort()).toEqual(['gone', 'restarted']);
    expect(await statuses(store)).toEqual({ gone: 'abandoned', 'gone-sa0': 'abandoned', restarted: 'abandoned', alive: 'running' });
    expect((await store.getSession('gone'))?.error).toMatch(/the machine restarted, or the run and its watcher were killed/);
    expect(existsSync(path.join(home, 'runs', 'gone.json'))).toBe(false);
    expect(existsSync(path.join(home, 'runs', 'alive.json'))).toBe(true);
    expect(existsSync(path.join(home, 'runs', 'half-written.json'))).toBe(true);
    await store.close();
  });

  test('a run claims its session while it runs and releases it when disarmed', async () => {
    const home = tempDir('hermes-claims-');
    const store = await storeWith([{ id: 'mine', status: 'running' }]);
    const watch = armAbandonWatch({ sessionId: 'mine', backend: 'docker', home, store: { driver: 'sqlite', path: ':memory:' } as never });
    expect(await settleOrphanedRuns(home, store)).toEqual([]);
    expect(existsSync(path.join(home, 'runs', 'mine.json'))).toBe(true);
    watch.disarm();
    expect(existsSync(path.join(home, 'runs', 'mine.json'))).toBe(false);
    expect(await statuses(store)).toEqual({ mine: 'running' });
    await store.close();
  });

  test('no claims folder: nothing to do', async () => {
    const store = await storeWith([{ id: 'x', status: 'running' }]);
    expect(await settleOrphanedRuns(tempDir('hermes-claims-'), store)).toEqual([]);
    await store.close();
  });
});
