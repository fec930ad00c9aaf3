// A worker started before its Temporal server (or across a server restart) waits, saying what it
// waits for, and serves sessions once the server is there; it gives up only after the
// configured limit, and SIGTERM ends the wait.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { resolveTemporalCli } from '../../src/temporal/cli-binary';
import { freePort, startDevServer, type DevServer } from '../../src/temporal/dev-server';
import { CliTestbed, jsonLines, requireBuild, withTimeout, type SpawnedProcess } from '../helpers/cli';

requireBuild();

const testbed = new CliTestbed();
afterEach(() => testbed.cleanup());

/** The worker logs (JSON lines) on stderr; resolves once one matches, bounded. */
async function untilLogged(worker: SpawnedProcess, pattern: RegExp, timeoutMs: number): Promise<void> {
  await withTimeout(
    (async () => {
      while (!pattern.test(worker.stdout + worker.stderr) && worker.running) await new Promise((resolve) => setTimeout(resolve, 100));
    })(),
    timeoutMs,
    () => `the worker did not log ${pattern}${worker.describeOutput()}`,
  );
  if (!pattern.test(worker.stdout + worker.stderr)) throw new Error(`the worker exited before logging ${pattern}${worker.describeOutput()}`);
}

function devServerOn(port: number): Promise<DevServer> {
  return startDevServer({ cli: resolveTemporalCli({}), port, headless: true });
}

test('a worker started while the server is down waits with a clear line, then serves a session', async () => {
  const port = await freePort();
  const address = `127.0.0.1:${port}`;
  const sandbox = await testbed.sandbox({
    address,
    script: { turns: [{ content: 'served' }] },
    env: { HERMES__WORKER__CONNECT_TIMEOUT_SECONDS: '120' },
  });
  const worker = testbed.worker(sandbox);
  await untilLogged(worker, /Waiting for the Temporal server at 127\.0\.0\.1:\d+ .*attempt 1 failed/, 20_000);
  expect(worker.running).toBe(true);
  expect(worker.stdout + worker.stderr).toMatch(/retrying in \d+ s, giving up after 120 s \(worker\.connect_timeout_seconds\)/);

  const server = await devServerOn(port);
  testbed.onCleanup(() => server.stop());
  await untilLogged(worker, /worker polling/i, 60_000);
  const run = await testbed.runCli(sandbox, ['run', '--json', '--no-worker', 'anything'], 60_000);
  expect(jsonLines(run.stdout).at(-1)).toMatchObject({ type: 'final', status: 'completed' });

  // The server restarts under the running worker: the worker stays and serves the next session.
  await server.stop();
  await new Promise((resolve) => setTimeout(resolve, 3000));
  expect(worker.running).toBe(true);
  const restarted = await devServerOn(port);
  testbed.onCleanup(() => restarted.stop());
  const second = await testbed.runCli(sandbox, ['run', '--json', '--no-worker', 'again'], 90_000);
  expect(jsonLines(second.stdout).at(-1)).toMatchObject({ type: 'final', status: 'completed' });
  expect(worker.running).toBe(true);

  worker.signal('SIGTERM');
  expect((await worker.waitForExit(20_000)).code).toBe(0);
}, 240_000);

test('the wait ends at the configured limit, and on SIGTERM', async () => {
  const address = `127.0.0.1:${await freePort()}`;
  const limited = await testbed.sandbox({ address, env: { HERMES__WORKER__CONNECT_TIMEOUT_SECONDS: '3' } });
  const result = await testbed.worker(limited).waitForExit(30_000);
  expect(result.code).toBe(1);
  expect(result.stderr).toMatch(new RegExp(`Gave up waiting for the Temporal server at ${address.replace(/\./g, '\\.')} after \\d+ s \\(worker\\.connect_timeout_seconds=3\\)`));

  const patient = await testbed.sandbox({ address, env: { HERMES__WORKER__CONNECT_TIMEOUT_SECONDS: '0' } });
  const worker = testbed.worker(patient);
  await untilLogged(worker, /waiting for ever/, 20_000);
  worker.signal('SIGTERM');
  const stopped = await worker.waitForExit(5000);
  expect(stopped.code).toBe(1);
  expect(stopped.stderr).toMatch(/Stopped while waiting for the Temporal server/);
}, 90_000);

test('without TEMPORAL_ADDRESS a worker joins the running `hermes-temporal dev` of its home', async () => {
  const address = process.env.HERMES_TEST_TEMPORAL_ADDRESS!;
  const sandbox = await testbed.sandbox({ script: { turns: [{ content: 'served by the joined worker' }] }, env: { TEMPORAL_ADDRESS: undefined } });
  // What `dev` leaves in <home>/servers while it runs (its owner and server processes alive).
  mkdirSync(path.join(sandbox.home, 'servers'));
  const record = { pid: process.pid, owner: process.pid, kind: 'dev', address, namespace: 'default' };
  writeFileSync(path.join(sandbox.home, 'servers', `${process.pid}.json`), JSON.stringify(record));
  const worker = testbed.worker(sandbox);
  await untilLogged(worker, /worker polling/i, 30_000);
  const run = await testbed.runCli(sandbox, ['run', '--json', '--no-worker', 'anything'], 60_000);
  expect(jsonLines(run.stdout).at(-1)).toMatchObject({ type: 'final', status: 'completed', answer: 'served by the joined worker' });
  worker.signal('SIGTERM');
  expect((await worker.waitForExit(20_000)).code).toBe(0);
}, 120_000);
