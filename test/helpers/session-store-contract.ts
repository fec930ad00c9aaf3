// What every session store promises (src/store/session-store.ts), as one suite that each
// implementation runs: sessions and transcripts survive retries (idempotent writes), come back in
// order, and are shared by every store opened on the same storage.
import type { NewMessage, NewSession, SessionStore } from '../../src/store/session-store';

/** Fresh, empty storage for one test; each `open()` is another connection to it (another process). */
export interface ContractStorage {
  open(): SessionStore;
  /** Called after every store opened on it is closed. */
  dispose(): Promise<void>;
}

export function session(sessionId: string, overrides: Partial<NewSession> = {}): NewSession {
  return {
    sessionId,
    workflowId: `wf-${sessionId}`,
    task: `task of ${sessionId}`,
    model: 'gpt-4o-mini',
    cwd: '/work',
    toolNames: ['terminal', 'read_file'],
    status: 'running',
    ...overrides,
  };
}

export const message = (seq: number, overrides: Partial<NewMessage> = {}): NewMessage => ({
  seq,
  role: 'user',
  content: `message ${seq}`,
  ...overrides,
});

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

export function describeSessionStoreContract(name: string, makeStorage: () => Promise<ContractStorage> | ContractStorage): void {
  describe(name, () => {
    let storage: ContractStorage;
    const opened: SessionStore[] = [];

    function open(): SessionStore {
      const store = storage.open();
      opened.push(store);
      return store;
    }

    beforeEach(async () => {
      storage = await makeStorage();
    });

    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close();
      await storage.dispose();
    });

    describe('tool listings', () => {
      it('keeps a listing under its digest for every store on the same storage, the first write winning', async () => {
        const writer = open();
        await writer.saveToolListing('digest-1', '{"tools":[]}');
        await writer.saveToolListing('digest-1', '{"tools":["other"]}');
        expect(await open().getToolListing('digest-1')).toBe('{"tools":[]}');
        expect(await writer.getToolListing('missing')).toBeUndefined();
      });
    });

    describe('sessions', () => {
      it('creates a session and reads it back', async () => {
        const store = open();
        const created = await store.createSession(session('s1', { parentSessionId: 'parent' }));
        expect(created).toMatchObject({ ...session('s1'), parentSessionId: 'parent' });
        expect(created).not.toHaveProperty('answer');
        expect(created).not.toHaveProperty('error');
        expect(new Date(created.createdAt).toISOString()).toBe(created.createdAt);
        expect(created.updatedAt).toBe(created.createdAt);
        expect(await store.getSession('s1')).toEqual(created);
      });

      it('keeps the first record when a session is created twice (a retried activity)', async () => {
        const store = open();
        const first = await store.createSession(session('s1', { task: 'original task' }));
        const second = await store.createSession(session('s1', { task: 'different task', toolNames: ['web'] }));
        expect(second).toEqual(first);
        expect((await store.listSessions()).length).toBe(1);
      });

      it('returns undefined for an unknown session', async () => {
        expect(await open().getSession('missing')).toBeUndefined();
      });

      it('updates status, answer, error and tools, and bumps updatedAt', async () => {
        const store = open();
        const created = await store.createSession(session('s1'));
        await tick();
        await store.updateSession('s1', { status: 'completed', answer: 'done', error: 'warning', toolNames: ['terminal'] });
        const updated = await store.getSession('s1');
        expect(updated).toMatchObject({ status: 'completed', answer: 'done', error: 'warning', toolNames: ['terminal'] });
        expect(updated!.task).toBe(created.task);
        expect(updated!.createdAt).toBe(created.createdAt);
        expect(updated!.updatedAt > created.updatedAt).toBe(true);
      });

      it('leaves a session untouched by an empty update', async () => {
        const store = open();
        const created = await store.createSession(session('s1'));
        await tick();
        await store.updateSession('s1', {});
        expect(await store.getSession('s1')).toEqual(created);
      });

      it('lists the newest sessions first, up to the limit', async () => {
        const store = open();
        for (const id of ['a', 'b', 'c', 'd']) {
          await store.createSession(session(id));
          await tick();
        }
        expect((await store.listSessions()).map((s) => s.sessionId)).toEqual(['d', 'c', 'b', 'a']);
        expect((await store.listSessions({ limit: 2 })).map((s) => s.sessionId)).toEqual(['d', 'c']);
      });
    });

    describe('messages', () => {
      it('appends a message once: a second append at the same seq returns the first unchanged', async () => {
        const store = open();
        const first = await store.appendMessage('s1', message(0, { content: 'first' }));
        await tick();
        const again = await store.appendMessage('s1', message(0, { role: 'assistant', content: 'second' }));
        expect(again).toEqual(first);
        expect(again).toMatchObject({ seq: 0, role: 'user', content: 'first' });
        expect(await store.getMessages('s1')).toEqual([first]);
      });

      it('keeps exactly one message when appends at the same seq race', async () => {
        const store = open();
        const results = await Promise.all(
          Array.from({ length: 8 }, (_, attempt) => store.appendMessage('s1', message(0, { content: `attempt ${attempt}` }))),
        );
        const stored = await store.getMessages('s1');
        expect(stored).toHaveLength(1);
        for (const result of results) expect(result).toEqual(stored[0]);
      });

      it('returns messages in seq order whatever order they were written in', async () => {
        const store = open();
        for (const seq of [3, 0, 2, 1, 4]) await store.appendMessage('s1', message(seq));
        expect((await store.getMessages('s1')).map((m) => m.seq)).toEqual([0, 1, 2, 3, 4]);
      });

      it('reads a window of the transcript with fromSeq and limit', async () => {
        const store = open();
        for (let seq = 0; seq < 10; seq += 1) await store.appendMessage('s1', message(seq));
        expect((await store.getMessages('s1', { fromSeq: 7 })).map((m) => m.seq)).toEqual([7, 8, 9]);
        expect((await store.getMessages('s1', { limit: 3 })).map((m) => m.seq)).toEqual([0, 1, 2]);
        expect((await store.getMessages('s1', { fromSeq: 4, limit: 2 })).map((m) => m.seq)).toEqual([4, 5]);
        expect(await store.getMessages('s1', { fromSeq: 10 })).toEqual([]);
      });

      it('reads the last N messages, still in seq order (a session\'s end without its whole transcript)', async () => {
        const store = open();
        for (let seq = 0; seq < 10; seq += 1) await store.appendMessage('s1', message(seq));
        expect((await store.getMessages('s1', { last: 3 })).map((m) => m.seq)).toEqual([7, 8, 9]);
        expect((await store.getMessages('s1', { last: 20 })).map((m) => m.seq)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
        expect(await store.getMessages('s1', { last: 0 })).toEqual([]);
      });

      it('round-trips tool calls, tool results and null content', async () => {
        const store = open();
        const toolCalls = [
          { id: 'call_1', name: 'terminal', arguments: '{"command":"ls -la"}' },
          { id: 'call_2', name: 'read_file', arguments: '{not json at all' },
        ];
        await store.appendMessage('s1', { seq: 0, role: 'assistant', content: null, toolCalls });
        await store.appendMessage('s1', { seq: 1, role: 'tool', content: '{"output":"é ✓ \\u0000"}', toolCallId: 'call_1', name: 'terminal' });
        const [assistant, tool] = await store.getMessages('s1');
        expect(assistant).toMatchObject({ seq: 0, role: 'assistant', content: null, toolCalls });
        expect(assistant).not.toHaveProperty('toolCallId');
        expect(tool).toMatchObject({ seq: 1, role: 'tool', content: '{"output":"é ✓ \\u0000"}', toolCallId: 'call_1', name: 'terminal' });
        expect(tool).not.toHaveProperty('toolCalls');
        expect(await store.getMessage('s1', 0)).toEqual(assistant);
        expect(await store.getMessage('s1', 2)).toBeUndefined();
      });

      it('keeps the transcripts of different sessions apart', async () => {
        const store = open();
        await store.appendMessage('s1', message(0, { content: 'for s1' }));
        await store.appendMessage('s2', message(0, { content: 'for s2' }));
        await store.appendMessage('s2', message(1, { content: 'also s2' }));
        expect((await store.getMessages('s1')).map((m) => m.content)).toEqual(['for s1']);
        expect((await store.getMessages('s2')).map((m) => m.content)).toEqual(['for s2', 'also s2']);
        expect(await store.getMessages('nobody')).toEqual([]);
      });
    });

    describe('sharing the storage', () => {
      it("lets two stores on the same storage see each other's writes", async () => {
        const worker = open();
        const cli = open();
        await worker.createSession(session('s1'));
        await worker.appendMessage('s1', message(0, { content: 'from the worker' }));
        expect(await cli.getSession('s1')).toMatchObject({ sessionId: 's1', status: 'running' });
        expect((await cli.getMessages('s1')).map((m) => m.content)).toEqual(['from the worker']);

        await cli.updateSession('s1', { status: 'cancelled' });
        expect((await worker.getSession('s1'))!.status).toBe('cancelled');
        // The idempotency key holds across connections too.
        const duplicate = await cli.appendMessage('s1', message(0, { content: 'retried elsewhere' }));
        expect(duplicate.content).toBe('from the worker');
      });

      it('keeps the data after the store is closed and reopened', async () => {
        const store = storage.open();
        await store.createSession(session('s1'));
        await store.appendMessage('s1', message(0));
        await store.close();
        const reopened = open();
        expect(await reopened.getSession('s1')).toBeDefined();
        expect(await reopened.getMessages('s1')).toHaveLength(1);
      });
    });
  });
}
