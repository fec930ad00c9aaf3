// A worker in a child process (worker.ts through tsx), for tests that kill a worker outright.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { LoadedConfig } from '../../src/config/load';
import type { SessionStore } from '../../src/store/session-store';
import type { SessionHandle } from '../../src/temporal/sessions';
import { createTestWorker, toolResults, type Harness } from './session-harness';

const ROOT = path.resolve(__dirname, '../..');

/**
 * Starts `worker.ts` for `config`'s home, task queue and cwd, against the test server and a
 * scripted model; `env` adds settings (e.g. HERMES__TERMINAL__BACKEND). Kill it with `kill()`.
 */
export function spawnWorkerProcess(options: {
  address: string;
  config: LoadedConfig;
  modelUrl: string;
  env?: Record<string, string | undefined>;
}): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'worker.ts')], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      HERMES_TEMPORAL_HOME: options.config.home,
      TEMPORAL_ADDRESS: options.address,
      HERMES_TASK_QUEUE: options.config.temporal.task_queue,
      OPENAI_BASE_URL: options.modelUrl,
      OPENAI_API_KEY: 'test',
      HERMES_MODEL: 'scripted',
      HERMES__SESSION__CWD: options.config.session.cwd,
      ...options.env,
    },
    stdio: 'ignore',
  });
}

/**
 * After a worker died mid-command: a fresh in-process worker finishes the session, which must
 * complete with `toolCalls` calls, the first answered "interrupted, may have partially run".
 * Returns every tool result (the store stays open for the caller, who closes it).
 */
export async function finishAfterKilledWorker(
  harness: Harness,
  config: LoadedConfig,
  handle: SessionHandle,
  toolCalls: number,
): Promise<{ results: Record<string, unknown>[]; store: SessionStore }> {
  const { worker, store } = await createTestWorker(harness, config);
  const result = await worker.runUntil(handle.result());
  expect(result).toMatchObject({ status: 'completed', toolCalls });
  const results = await toolResults(store, handle);
  expect(results[0]).toMatchObject({ exit_code: 130, status: 'interrupted' });
  expect(String(results[0]?.error)).toMatch(/may have partially run/);
  return { results, store };
}
