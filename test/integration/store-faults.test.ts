// Store faults injected for real under running sessions: a store file deleted, a disk that fills
// (a small tmpfs), a store that cannot be written (a read-only bind mount), and a workflow
// terminated behind the store's back. Nothing is lost silently: the session fails loudly, waits
// for space, or the record follows the workflow's end. Needs root (mount).
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { startScriptedModelServer } from '../../src/model/scripted-model-server';
import type { SessionStore } from '../../src/store/session-store';
import { SqliteSessionStore } from '../../src/store/sqlite-session-store';
import { storeFaultOf } from '../../src/store/store-faults';
import { startSession } from '../../src/temporal/sessions';
import { syncSessionStatuses } from '../../src/temporal/session-status-sync';
import { createSessionStore } from '../../src/store/create-session-store';
import { describeWithService } from '../helpers/services';
import { CLI_ENTRY, requireBuild, SpawnedProcess } from '../helpers/cli';
import { connectHarness, createTestWorker, sessionIdOf, tempDir, testConfig, toolResults, uniqueName, type Harness } from '../helpers/session-harness';
import { waitFor } from '../helpers/wait';

let harness: Harness;
beforeAll(async () => {
  requireBuild();
  harness = await connectHarness();
});
afterAll(async () => {
  await harness.close();
});

const mounts: string[] = [];
afterEach(() => {
  for (const mount of mounts.splice(0).reverse()) execFileSync('umount', ['-l', mount]);
});

function mount(args: string[], target: string): void {
  mkdirSync(target, { recursive: true });
  execFileSync('mount', [...args, target]);
  mounts.push(target);
}

const sleepThenEcho = (seconds: number, text: string) => ({ tool_calls: [{ name: 'terminal', arguments: { command: `sleep ${seconds}; echo ${text}` } }] });

test('a store file deleted while the session runs fails the session loudly, naming the file', async () => {
  const model = await startScriptedModelServer({ script: { turns: [sleepThenEcho(2, 'ran'), { content: 'done' }] } });
  const config = testConfig({ model: { base_url: model.url } });
  const { worker, store } = await createTestWorker(harness, config);
  try {
    await worker.runUntil(async () => {
      const handle = await startSession(harness.client, { task: 'sleep a little', config });
      await waitFor(() => model.requests.length === 1, { timeoutMs: 20_000, what: 'the first model call' });
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${config.store.path}${suffix}`, { force: true });
      const failure = await handle.result().then(() => undefined, (error: unknown) => error as Error & { cause?: Error });
      expect(failure?.cause?.message).toMatch(new RegExp(`The session store ${config.store.path.replace(/[.]/g, '\\.')} was deleted while this worker had it open`));
      expect(model.requests).toHaveLength(1);
      // `show` no longer finds the record, and says the workflow exists and how it ended.
      const env = { PATH: process.env.PATH, HOME: process.env.HOME, HERMES_TEMPORAL_HOME: config.home, TEMPORAL_ADDRESS: harness.address };
      const shown = await new SpawnedProcess('show', [CLI_ENTRY, 'show', sessionIdOf(handle)], { cwd: config.home, env }).waitForExit(20_000);
      expect(shown.code).toBe(1);
      expect(shown.stderr).toMatch(new RegExp(`No session '${sessionIdOf(handle)}' in .*; Temporal has its workflow ${handle.workflowId} \\(failed\\), so this store lost or never had its record`));
    });
  } finally {
    await model.close();
    await store.close();
  }
});

test('a disk that fills while a command runs: the output is kept and written once space is freed', async () => {
  const storeDir = path.join(tempDir('hermes-full-'), 'store');
  mount(['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs'], storeDir);
  const model = await startScriptedModelServer({ script: { turns: [sleepThenEcho(2, 'finished-despite-full-disk'), { content: 'done' }] } });
  const config = testConfig({ model: { base_url: model.url }, store: { path: path.join(storeDir, 'sessions.db') } });
  const { worker, store } = await createTestWorker(harness, config);
  try {
    await worker.runUntil(async () => {
      const handle = await startSession(harness.client, { task: 'run while the disk fills', config });
      await waitFor(() => model.requests.length === 1, { timeoutMs: 20_000, what: 'the first model call' });
      // Fill the tmpfs to the last byte while the command sleeps.
      const filler = path.join(storeDir, 'filler');
      const descriptor = openSync(filler, 'w');
      const chunk = Buffer.alloc(64 * 1024, 1);
      try {
        for (;;) writeSync(descriptor, chunk);
      } catch (error) {
        expect((error as NodeJS.ErrnoException).code).toBe('ENOSPC');
      } finally {
        closeSync(descriptor);
      }
      await new Promise((resolve) => setTimeout(resolve, 4000));
      // The command has ended and its result waits in memory; nothing was told to the model yet.
      expect(model.requests).toHaveLength(1);
      unlinkSync(filler);
      expect(await handle.result()).toMatchObject({ status: 'completed', answer: 'done' });
      expect((await toolResults(store, handle))[0]).toMatchObject({ exit_code: 0, output: expect.stringContaining('finished-despite-full-disk') });
    });
  } finally {
    await model.close();
    await store.close();
  }
});

/**
 * The store a worker uses, moved to another real store once the first tool result is written:
 * the fault then meets the next model call deterministically, not whichever step races it.
 */
function switchingStore(first: SessionStore, next: () => SessionStore): SessionStore {
  let current = first;
  return {
    createSession: (session) => current.createSession(session),
    getSession: (sessionId) => current.getSession(sessionId),
    updateSession: (sessionId, update) => current.updateSession(sessionId, update),
    listSessions: (options) => current.listSessions(options),
    appendMessage: async (sessionId, message) => {
      const stored = await current.appendMessage(sessionId, message);
      if (message.role === 'tool') current = next();
      return stored;
    },
    getMessage: (sessionId, seq) => current.getMessage(sessionId, seq),
    getMessages: (sessionId, options) => current.getMessages(sessionId, options),
    assertWritable: () => current.assertWritable?.() ?? Promise.resolve(),
    saveToolListing: (digest, listing) => current.saveToolListing(digest, listing),
    getToolListing: (digest) => current.getToolListing(digest),
    close: () => current.close(),
  };
}

test('a store that cannot be written fails the turn at once, without asking the model again', async () => {
  const writable = tempDir('hermes-rw-');
  const readOnly = tempDir('hermes-ro-');
  const model = await startScriptedModelServer({ script: { turns: [sleepThenEcho(0, 'first'), { content: 'never stored' }] } });
  const config = testConfig({ model: { base_url: model.url }, store: { path: path.join(writable, 'sessions.db') } });
  const rw = new SqliteSessionStore(config.store.path);
  // The same file seen through a read-only mount (the writable connection stays open, so
  // SQLite's shared-memory file exists and reads through the mount work; writes cannot).
  mount(['--bind', '-o', 'ro', writable], readOnly);
  let ro: SqliteSessionStore | undefined;
  const store = switchingStore(rw, () => (ro = new SqliteSessionStore(path.join(readOnly, 'sessions.db'))));
  const { worker } = await createTestWorker(harness, config, store);
  try {
    const failure = await worker.runUntil(async () => {
      const handle = await startSession(harness.client, { task: 'one command, then a reply', config });
      return handle.result().then(() => undefined, (error: unknown) => error as Error & { cause?: Error });
    });
    expect(failure?.cause?.message).toMatch(/^Model call failed: The session store cannot be written \(.*readonly.*\)/);
    // Found before the model was called for the second turn: not once more, let alone 8 times.
    expect(model.requests).toHaveLength(1);
    expect(ro).toBeDefined();
  } finally {
    await model.close();
    await ro?.close();
    await rw.close();
  }
});

test('a terminated session shows as terminated in `sessions` and `show`, reconciled from Temporal', async () => {
  const model = await startScriptedModelServer({ script: { turns: [{ tool_calls: [{ name: 'terminal', arguments: { command: 'rm -rf precious' } }] }] } });
  const config = testConfig({ model: { base_url: model.url } });
  const { worker, store } = await createTestWorker(harness, config);
  try {
    const handle = await worker.runUntil(async () => {
      const started = await startSession(harness.client, { task: 'wait for a human', config });
      await waitFor(async () => (await store.getMessages(sessionIdOf(started))).length >= 3, { timeoutMs: 20_000, what: 'the first turn' });
      await started.terminate('the operator stopped it');
      return started;
    });
    const sessionId = sessionIdOf(handle);
    expect((await store.getSession(sessionId))?.status).toBe('running');

    const env = { PATH: process.env.PATH, HOME: process.env.HOME, HERMES_TEMPORAL_HOME: config.home, TEMPORAL_ADDRESS: harness.address };
    const listed = await new SpawnedProcess('sessions', [CLI_ENTRY, 'sessions', '--json'], { cwd: config.home, env }).waitForExit(20_000);
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ sessionId, status: 'terminated', error: 'Workflow terminated: the operator stopped it' })]);
    const shown = await new SpawnedProcess('show', [CLI_ENTRY, 'show', sessionId], { cwd: config.home, env }).waitForExit(20_000);
    expect(shown.stdout).toMatch(new RegExp(`^${sessionId}  terminated`));
    expect(shown.stdout).toMatch(/error: Workflow terminated: the operator stopped it/);
    // Written back: the record no longer claims to run, whoever reads it next.
    expect(await store.getSession(sessionId)).toMatchObject({ status: 'terminated' });
  } finally {
    await model.close();
    await store.close();
  }
});

test('without TEMPORAL_ADDRESS, `sessions` and `show` reconcile through the running `hermes-temporal dev` of the home', async () => {
  const config = testConfig({ temporal: { task_queue: uniqueName('nobody-polls') } });
  const store = createSessionStore(config);
  try {
    const handle = await startSession(harness.client, { task: 'never served', config });
    const sessionId = sessionIdOf(handle);
    await store.createSession({ sessionId, workflowId: handle.workflowId, task: 'never served', model: 'scripted', cwd: '/', toolNames: [], status: 'running' });
    await handle.terminate('stopped by hand');
    // What `dev` leaves in <home>/servers while it runs (its owner and server processes alive).
    mkdirSync(path.join(config.home, 'servers'), { recursive: true });
    const record = { pid: process.pid, owner: process.pid, kind: 'dev', address: harness.address, namespace: 'default' };
    writeFileSync(path.join(config.home, 'servers', `${process.pid}.json`), JSON.stringify(record));

    const env = { PATH: process.env.PATH, HOME: process.env.HOME, HERMES_TEMPORAL_HOME: config.home };
    const listed = await new SpawnedProcess('sessions', [CLI_ENTRY, 'sessions', '--json'], { cwd: config.home, env }).waitForExit(20_000);
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ sessionId, status: 'terminated' })]);
    const shown = await new SpawnedProcess('show', [CLI_ENTRY, 'show', sessionId], { cwd: config.home, env }).waitForExit(20_000);
    expect(shown.stdout).toMatch(/\n {2}live: terminated\n/);
  } finally {
    await store.close();
  }
});

describeWithService('postgres', ['HERMES_TEST_POSTGRES_URL'], 'PostgreSQL store', (services) => {
 test('follows a terminated workflow the same way', async () => {
  const postgresUrl = services.HERMES_TEST_POSTGRES_URL!;
  const config = testConfig({ temporal: { task_queue: uniqueName('nobody-polls') } });
  const store = createSessionStore({ store: { ...config.store, postgres_url: postgresUrl } });
  try {
    const handle = await startSession(harness.client, { task: 'never served', config });
    const sessionId = sessionIdOf(handle);
    await store.createSession({ sessionId, workflowId: handle.workflowId, task: 'never served', model: 'scripted', cwd: '/', toolNames: [], status: 'running' });
    await handle.terminate('stopped in the test');
    const [synced] = await syncSessionStatuses(harness.client, store, [(await store.getSession(sessionId))!]);
    expect(synced).toMatchObject({ status: 'terminated', error: 'Workflow terminated: stopped in the test' });
    expect(await store.getSession(sessionId)).toMatchObject({ status: 'terminated', error: 'Workflow terminated: stopped in the test' });
  } finally {
    await store.close();
  }
});

  test('a read-only PostgreSQL store is recognized before anything is written', async () => {
    const url = new URL(services.HERMES_TEST_POSTGRES_URL!);
    url.searchParams.set('options', '-c default_transaction_read_only=on');
    const store = createSessionStore({ store: { ...testConfig().store, postgres_url: url.toString() } });
    try {
      const error = await store.assertWritable!().then(() => undefined, (caught: unknown) => caught);
      expect(storeFaultOf(error)).toBe('read_only');
    } finally {
      await store.close();
    }
  });
});
