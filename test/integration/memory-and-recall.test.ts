// Memory and recall across sessions on a real Temporal server: what one session saves, a session
// started later sees in its system prompt, and it finds the first session with session_search.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startScriptedModelServer } from '../../src/model/scripted-model-server';
import type { ModelScriptInput } from '../../src/model/model-script';
import { startSession } from '../../src/temporal/sessions';
import { connectHarness, createTestWorker, sessionIdOf, tempDir, testConfig, toolResults, type Harness } from '../helpers/session-harness';

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(async () => {
  await harness.close();
});

/** Runs one session to its end on a worker of its own, against the shared home (store and memory). */
async function runSession(dirs: { home: string; cwd: string }, task: string, script: ModelScriptInput) {
  const model = await startScriptedModelServer({ script });
  const config = testConfig({ model: { base_url: model.url } }, dirs);
  const { store, worker } = await createTestWorker(harness, config);
  try {
    const handle = await startSession(harness.client, { task, config });
    const result = await worker.runUntil(handle.result());
    const sessionId = sessionIdOf(handle);
    return { result, sessionId, transcript: await store.getMessages(sessionId), tools: await toolResults(store, handle), requests: model.requests };
  } finally {
    await model.close();
    await store.close();
  }
}

test('a fact saved with memory reaches the system prompt of the next session, which finds the first with session_search', async () => {
  const dirs = { home: tempDir('hermes-recall-home-'), cwd: tempDir('hermes-recall-cwd-') };

  const first = await runSession(dirs, 'Note that the staging database is called pelican-seven', {
    turns: [
      { tool_calls: [{ name: 'memory', arguments: { action: 'add', target: 'memory', content: 'Staging database: pelican-seven' } }] },
      { content: 'Saved.' },
    ],
  });
  expect(first.result).toMatchObject({ status: 'completed', answer: 'Saved.' });
  expect(first.tools[0]).toMatchObject({ success: true, message: 'Entry added.' });
  expect(readFileSync(path.join(dirs.home, 'memories', 'MEMORY.md'), 'utf8')).toBe('Staging database: pelican-seven');
  // Written during the session: its own prompt stays as it started.
  expect(first.transcript[0]!.content).not.toContain('pelican-seven');

  const second = await runSession(dirs, 'What is the staging database called?', {
    turns: [{ tool_calls: [{ name: 'session_search', arguments: { query: 'pelican' } }] }, { content: 'It is pelican-seven.' }],
  });
  expect(second.result).toMatchObject({ status: 'completed', answer: 'It is pelican-seven.' });
  const system = second.transcript[0]!.content!;
  expect(system).toContain('MEMORY (your personal notes) [1% — 31/2,200 chars]');
  expect(system).toContain('Staging database: pelican-seven');
  // The model itself was sent that prompt.
  expect(second.requests[0]!.messages[0]).toMatchObject({ role: 'system', content: system });
  const search = second.tools[0]!;
  expect(search).toMatchObject({ success: true, mode: 'discover', count: 1 });
  expect((search.results as { session_id: string; title: string }[])[0]).toMatchObject({
    session_id: first.sessionId,
    title: 'Note that the staging database is called pelican-seven',
  });
});
