// End to end on the real Temporal server: a whole session's terminal call runs in the local
// sandbox. From inside, the Temporal frontend this very session runs on is unreachable, the
// session store in the workspace is hidden, and the worker's processes are not there.
import path from 'node:path';
import { realpathSync } from 'node:fs';
import pino from 'pino';
import { createHermesWorker } from '../../src/temporal/worker';
import { createSessionStore } from '../../src/store/create-session-store';
import { connectHarness, tempDir, testConfig, toolResults, withScriptedSession, type Harness } from '../helpers/session-harness';

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(async () => {
  await harness.close();
});

test('a session\'s terminal call is sandboxed: no Temporal frontend, no session store, no worker process', async () => {
  const workspace = realpathSync(tempDir('hermes-sandbox-e2e-'));
  const [host, port] = harness.address.split(':');
  const command = [
    'hostname',
    `(exec 3<>/dev/tcp/${host}/${port}) 2>/dev/null && echo frontend-reachable || echo frontend-unreachable`,
    'head -c 15 sessions.db; echo',
    `kill -0 ${process.pid} 2>/dev/null && echo worker-visible || echo worker-invisible`,
  ].join('; ');
  const script = {
    turns: [{ tool_calls: [{ name: 'terminal', arguments: { command } }] }, { content: 'Done.' }],
  };
  const config = {
    session: { cwd: workspace },
    // The store sits in the workspace here, so only the sandbox's hiding keeps it from the command.
    store: { path: path.join(workspace, 'sessions.db') },
    approvals: { mode: 'off' as const },
  };
  await withScriptedSession(harness, { script, config }, async ({ handle, store }) => {
    expect(await handle.result()).toMatchObject({ status: 'completed' });
    const [result] = await toolResults(store, handle);
    const output = String(result?.output);
    expect(output).toContain('hermes-sandbox');
    expect(output).toContain('frontend-unreachable');
    expect(output).not.toContain('SQLite format');
    expect(output).toContain('worker-invisible');
  });
});

test('a worker whose config turns the sandbox off says so when it starts', async () => {
  const config = testConfig({ terminal: { local: { sandbox: 'off' } } });
  const lines: string[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
  const store = createSessionStore(config);
  try {
    const worker = await createHermesWorker({ connection: harness.nativeConnection, config, store, logger });
    // Started and stopped at once, so it lets go of the shared connection.
    await worker.runUntil(async () => undefined);
  } finally {
    await store.close();
  }
  const warnings = lines.map((line) => JSON.parse(line) as { level: number; msg: string }).filter((entry) => entry.level === 40);
  expect(warnings.map((entry) => entry.msg)).toContainEqual(expect.stringMatching(/terminal\.local\.sandbox is off: local commands run unsandboxed/));
});
