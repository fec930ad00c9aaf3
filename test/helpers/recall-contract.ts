// What memory and session_search promise on every session store (SQLite with memory files,
// PostgreSQL with memory rows), as one suite each implementation runs: the four search shapes,
// the current lineage never found, bounded answers, and memory shared by every worker on the
// same storage without lost writes.
import type { SessionStore } from '../../src/store/session-store';
import { recallWorker } from './recall-tools';
import { message, session, type ContractStorage } from './session-store-contract';

/** Storage for one test, plus the hermes home whose memories folder a file-backed memory uses. */
export interface RecallStorage extends ContractStorage {
  home: string;
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

/** A finished session: system prompt, task, then alternating replies, all searchable but the system prompt. */
export async function pastSession(store: SessionStore, sessionId: string, lines: string[], extra: { parentSessionId?: string; cwd?: string } = {}): Promise<void> {
  await store.createSession(session(sessionId, { task: lines[0] ?? 'task', status: 'completed', ...extra }));
  await store.appendMessage(sessionId, message(0, { role: 'system', content: 'You are Hermes. secretsystemword' }));
  for (const [index, line] of lines.entries()) {
    await store.appendMessage(sessionId, message(index + 1, { role: index % 2 === 0 ? 'user' : 'assistant', content: line }));
  }
  await tick();
}

export function describeRecallContract(name: string, makeStorage: () => Promise<RecallStorage> | RecallStorage): void {
  describe(name, () => {
    let storage: RecallStorage;
    const opened: SessionStore[] = [];
    const open = () => {
      const store = storage.open();
      opened.push(store);
      return store;
    };

    beforeEach(async () => {
      storage = await makeStorage();
    });
    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close();
      await storage.dispose();
    });

    describe('session_search', () => {
      it('discovers the past session that mentions the words, with the match in context and bookends', async () => {
        const store = open();
        await pastSession(store, 'kubernetes', ['set up the cluster', 'the ingress needs a certificate', 'done, cluster is up']);
        await pastSession(store, 'baking', ['bake sourdough bread', 'use a long proof', 'the bread was great']);
        const worker = recallWorker(store, storage.home);
        const answer = await worker.call('session_search', { query: 'sourdough bread' });
        expect(answer).toMatchObject({ success: true, mode: 'discover', query: 'sourdough bread', count: 1, sessions_searched: 1 });
        const [result] = answer.results;
        expect(result).toMatchObject({ session_id: 'baking', title: 'bake sourdough bread', matched_role: 'user', match_message_id: 1, messages_before: 0, messages_after: 2 });
        expect(result.snippet).toContain('>>>sourdough<<<');
        expect(result.messages.map((m: { id: number }) => m.id)).toEqual([1, 2, 3]);
        expect(result.messages[0]).toMatchObject({ id: 1, role: 'user', content: 'bake sourdough bread', anchor: true });
        expect(result.bookend_start.map((m: { content: string }) => m.content)).toEqual(['bake sourdough bread', 'use a long proof', 'the bread was great']);
        expect(result.bookend_end).toHaveLength(3);
        // The system prompt is neither searched nor shown.
        expect(await worker.call('session_search', { query: 'secretsystemword' })).toEqual({ success: true, mode: 'discover', query: 'secretsystemword', results: [], count: 0, message: 'No matching sessions found.' });
      });

      it("finds only sessions started in the asker's folder or below it, unless the scope is all", async () => {
        const store = open();
        const folders = { here: '/work/app', below: '/work/app/tools', beside: '/work/app-old', elsewhere: '/srv/billing' };
        for (const [id, cwd] of Object.entries(folders)) await pastSession(store, id, [`pelican notes of ${id}`, 'noted'], { cwd });
        await store.createSession(session('asker', { cwd: '/work/app' }));
        const scoped = recallWorker(store, storage.home, {}, 'workspace');
        const ids = async (worker: typeof scoped, args: Record<string, unknown>) =>
          ((await worker.call('session_search', args, 'asker')).results as { session_id: string }[]).map((r) => r.session_id).sort();
        expect(await ids(scoped, { query: 'pelican', limit: 10 })).toEqual(['below', 'here']);
        expect(await ids(scoped, { limit: 10 })).toEqual(['below', 'here']);
        for (const outside of ['beside', 'elsewhere']) {
          expect(await scoped.call('session_search', { session_id: outside }, 'asker')).toMatchObject({ success: false, error: `session_id not found: ${outside}` });
          expect(await scoped.call('session_search', { session_id: outside, around_message_id: 1 }, 'asker')).toMatchObject({ success: false });
        }
        expect(await scoped.call('session_search', { session_id: 'below' }, 'asker')).toMatchObject({ success: true, mode: 'read' });
        // A session the store does not know has no folder to search in.
        expect(await scoped.call('session_search', { query: 'pelican' }, 'unknown')).toMatchObject({ success: false, error: expect.stringContaining('no record') });
        expect(await ids(recallWorker(store, storage.home, {}, 'all'), { query: 'pelican', limit: 10 })).toEqual(['below', 'beside', 'elsewhere', 'here']);
      });

      it("a sub-agent recalls within its root's folder, wherever its parent's shell was when it started it", async () => {
        const store = open();
        for (const [id, cwd] of Object.entries({ here: '/work/app', elsewhere: '/srv/billing' })) await pastSession(store, id, [`heron notes of ${id}`, 'noted'], { cwd });
        await store.createSession(session('root', { cwd: '/work/app' }));
        // Its parent had run `cd /`; its own child started from there too.
        await store.createSession(session('root-sa0', { cwd: '/', parentSessionId: 'root' }));
        await store.createSession(session('root-sa0-sa0', { cwd: '/', parentSessionId: 'root-sa0' }));
        await store.createSession(session('orphan', { cwd: '/', parentSessionId: 'gone' }));
        const scoped = recallWorker(store, storage.home, {}, 'workspace');
        for (const asker of ['root-sa0', 'root-sa0-sa0']) {
          const found = (await scoped.call('session_search', { query: 'heron', limit: 10 }, asker)).results as { session_id: string }[];
          expect(found.map((result) => result.session_id)).toEqual(['here']);
          expect(await scoped.call('session_search', { session_id: 'elsewhere' }, asker)).toMatchObject({ success: false, error: 'session_id not found: elsewhere' });
        }
        // A parent the store does not know gives no folder to search in.
        expect(await scoped.call('session_search', { query: 'heron' }, 'orphan')).toMatchObject({ success: false, error: expect.stringContaining('no record') });
      });

      it('supports OR, quoted phrases and prefixes, and limits the sessions returned (clamped to 1..10)', async () => {
        const store = open();
        await pastSession(store, 'alpha', ['deploying alpha service']);
        await pastSession(store, 'beta', ['beta rollout plan']);
        await pastSession(store, 'gamma', ['gamma rollout notes']);
        const worker = recallWorker(store, storage.home);
        const ids = async (args: Record<string, unknown>) => ((await worker.call('session_search', args)).results as { session_id: string }[]).map((r) => r.session_id).sort();
        expect(await ids({ query: 'alpha OR beta', limit: 5 })).toEqual(['alpha', 'beta']);
        expect(await ids({ query: '"rollout plan"' })).toEqual(['beta']);
        expect(await ids({ query: 'deploy*' })).toEqual(['alpha']);
        expect(await ids({ query: 'rollout', limit: 1 })).toHaveLength(1);
        expect(await ids({ query: 'rollout OR alpha', limit: 0 })).toHaveLength(1);
        expect(await ids({ query: 'rollout OR alpha', limit: 'lots' })).toHaveLength(3);
      });

      it("orders by the sessions' start when asked: newest first, or oldest first", async () => {
        const store = open();
        for (const id of ['early', 'middle', 'late']) await pastSession(store, id, [`release checklist for ${id}`]);
        const worker = recallWorker(store, storage.home);
        const order = async (sort: string) => ((await worker.call('session_search', { query: 'checklist', sort, limit: 3 })).results as { session_id: string }[]).map((r) => r.session_id);
        expect(await order('newest')).toEqual(['late', 'middle', 'early']);
        expect(await order('oldest')).toEqual(['early', 'middle', 'late']);
      });

      it('never finds the current session or its lineage; a sub-agent hit counts for its root', async () => {
        const store = open();
        await pastSession(store, 'current-session', ['talk about zebras']);
        await pastSession(store, 'current-child', ['zebras from a sub-agent of mine'], { parentSessionId: 'current-session' });
        await pastSession(store, 'old-root', ['an old session']);
        await pastSession(store, 'old-child', ['zebras found by a past sub-agent'], { parentSessionId: 'old-root' });
        const worker = recallWorker(store, storage.home);
        const answer = await worker.call('session_search', { query: 'zebras', limit: 10 });
        expect(answer.count).toBe(1);
        expect(answer.results[0]).toMatchObject({ session_id: 'old-child', parent_session_id: 'old-root', title: 'an old session' });
        // From inside the sub-agent, its parent's lineage is its own.
        expect((await worker.call('session_search', { query: 'zebras' }, 'current-child')).count).toBe(1);
        expect((await worker.call('session_search', { session_id: 'current-session', around_message_id: 1 })).error).toBe(
          'scroll rejected: anchor lives in the current session lineage (already in your active context)',
        );
      });

      it('withholds a result that needed approval and everything its session wrote after it, where the model may repeat it', async () => {
        const store = open();
        await pastSession(store, 'secret-read', ['look at the billing config', 'reading it']);
        await store.appendMessage('secret-read', message(3, { role: 'tool', content: 'BILLING_KEY=sk_live_recall_canary', toolCallId: 'c1', name: 'read_file', sensitive: true }));
        await store.appendMessage('secret-read', message(4, { role: 'assistant', content: 'The BILLING_KEY is sk_live_recall_canary' }));
        await store.appendMessage('secret-read', message(5, { role: 'tool', content: 'BILLING_KEY echoed: sk_live_recall_canary', toolCallId: 'c2', name: 'terminal' }));
        // Before the secret: still found; from it on: withheld, even though only the read was marked.
        expect(await store.getMessage('secret-read', 2)).not.toHaveProperty('sensitive');
        for (const seq of [3, 4, 5]) expect(await store.getMessage('secret-read', seq)).toMatchObject({ sensitive: true });
        const worker = recallWorker(store, storage.home);
        expect(await worker.call('session_search', { query: 'BILLING_KEY' })).toMatchObject({ success: true, count: 0 });
        expect((await worker.call('session_search', { query: 'reading' })).count).toBe(1);
        const read = await worker.call('session_search', { session_id: 'secret-read' });
        expect(JSON.stringify(read)).not.toContain('sk_live_recall_canary');
        expect(read.messages.filter((shown: { content: string }) => shown.content.startsWith('[withheld')).map((shown: { id: number }) => shown.id)).toEqual([3, 4, 5]);
        // Another session is not touched by it.
        await pastSession(store, 'other', ['BILLING_KEY rotation plan']);
        expect(await worker.call('session_search', { query: 'BILLING_KEY' })).toMatchObject({ count: 1, results: [{ session_id: 'other' }] });
      });

      it('reports a malformed query as a failed search, not an exception', async () => {
        const store = open();
        await pastSession(store, 'one', ['some words']);
        const answer = await recallWorker(store, storage.home).call('session_search', { query: '***' });
        expect(answer.success).toBe(false);
        expect(answer.error).toMatch(/^Search failed: /);
      });

      it('scrolls a window of ±window messages around a message id (its seq), clamped to 20', async () => {
        const store = open();
        await pastSession(store, 'long', Array.from({ length: 60 }, (_, index) => `line ${index + 1}`));
        const worker = recallWorker(store, storage.home);
        const answer = await worker.call('session_search', { session_id: 'long', around_message_id: 10, window: 3 });
        expect(answer).toMatchObject({ success: true, mode: 'scroll', session_id: 'long', around_message_id: 10, window: 3, messages_before: 3, messages_after: 3 });
        expect(answer.messages.map((m: { id: number }) => m.id)).toEqual([7, 8, 9, 10, 11, 12, 13]);
        expect(answer.messages.find((m: { anchor?: boolean }) => m.anchor).content).toBe('line 10');
        const start = await worker.call('session_search', { session_id: 'long', around_message_id: '1', window: 99 });
        expect(start).toMatchObject({ window: 20, messages_before: 0, messages_after: 20 });
        expect((await worker.call('session_search', { session_id: 'long', around_message_id: 500 })).error).toBe('around_message_id 500 not in session_id long');
        expect((await worker.call('session_search', { session_id: 'nope', around_message_id: 1 })).error).toBe('session_id not found: nope');
      });

      it('reads a whole session, or its first 20 and last 10 messages when it is large', async () => {
        const store = open();
        await pastSession(store, 'small', ['a', 'b', 'c']);
        await pastSession(store, 'large', Array.from({ length: 45 }, (_, index) => `line ${index + 1}`));
        const worker = recallWorker(store, storage.home);
        const small = await worker.call('session_search', { session_id: 'small' });
        expect(small).toMatchObject({ success: true, mode: 'read', session_id: 'small', truncated: false });
        expect(small.messages.map((m: { content: string }) => m.content)).toEqual(['a', 'b', 'c']);
        const large = await worker.call('session_search', { session_id: 'large' });
        expect(large).toMatchObject({ mode: 'read', truncated: true, message_count: 46 });
        expect(large.messages.map((m: { id: number }) => m.id)).toEqual([...Array.from({ length: 20 }, (_, i) => i + 1), ...Array.from({ length: 10 }, (_, i) => i + 36)]);
        expect((await worker.call('session_search', { session_id: 'work/large' })).error).toMatch(/^Profiles are not supported here/);
      });

      it('browses recent sessions newest first, without sub-agent sessions or the current one', async () => {
        const store = open();
        await pastSession(store, 'first', ['first task']);
        await pastSession(store, 'second', ['second task']);
        await pastSession(store, 'second-child', ['delegated'], { parentSessionId: 'second' });
        await pastSession(store, 'current-session', ['what I do now']);
        const answer = await recallWorker(store, storage.home).call('session_search', { limit: 10 });
        expect(answer).toMatchObject({ success: true, mode: 'browse', count: 2 });
        expect(answer.results.map((r: { session_id: string; title: string }) => [r.session_id, r.title])).toEqual([
          ['second', 'second task'],
          ['first', 'first task'],
        ]);
      });

      it('keeps answers bounded: long messages are cut to 500 characters, the whole answer under 30,000', async () => {
        const store = open();
        for (let index = 0; index < 10; index += 1) {
          await pastSession(store, `big-${index}`, Array.from({ length: 12 }, () => `needle ${'x'.repeat(3000)}`));
        }
        const answer = await recallWorker(store, storage.home).callRaw('session_search', { query: 'needle', limit: 10 });
        expect(answer.length).toBeLessThan(30_000);
        const parsed = JSON.parse(answer) as { truncated?: boolean; results: { messages: { content: string; content_truncated?: boolean; original_content_chars?: number }[] }[] };
        expect(parsed.truncated).toBe(true);
        expect(parsed.results[0]!.messages[0]).toMatchObject({ content_truncated: true, original_content_chars: 3007 });
        expect(parsed.results[0]!.messages[0]!.content).toHaveLength(501);
      });
    });

    describe('memory', () => {
      it("gives every worker on the same storage the other's memory, and loses no write when they race", async () => {
        const [first, second] = [recallWorker(open(), storage.home), recallWorker(open(), storage.home)];
        const answers = await Promise.all(
          Array.from({ length: 20 }, (_, index) => (index % 2 ? first : second).call('memory', { action: 'add', target: 'memory', content: `fact ${index}` })),
        );
        expect(answers.every((answer) => answer.success === true)).toBe(true);
        const snapshot = await recallWorker(open(), storage.home).snapshot();
        for (let index = 0; index < 20; index += 1) expect(snapshot).toContain(`fact ${index}\n`.trimEnd());
        expect(snapshot).toContain('MEMORY (your personal notes) [');
        expect(await first.call('memory', { action: 'remove', target: 'memory', old_text: 'fact 1' })).toMatchObject({ error: "Multiple entries matched 'fact 1'. Be more specific." });
        expect(await second.call('memory', { action: 'replace', target: 'memory', old_text: 'fact 19', content: 'fact nineteen' })).toMatchObject({ success: true, entry_count: 20 });
        expect(await first.snapshot()).toContain('fact nineteen');
      });

      it('applies a batch all-or-nothing', async () => {
        const worker = recallWorker(open(), storage.home);
        await worker.call('memory', { action: 'add', target: 'user', content: 'Name: Ada' });
        const failed = await worker.call('memory', { target: 'user', operations: [{ action: 'add', content: 'Likes tea' }, { action: 'remove', old_text: 'Bob' }] });
        expect(failed.error).toBe("Operation 2 (remove): no entry matched 'Bob'. No operations were applied (batch is all-or-nothing).");
        expect(await worker.snapshot()).not.toContain('Likes tea');
      });
    });
  });
}
