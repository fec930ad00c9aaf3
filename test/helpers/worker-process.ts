// A worker in a child process (worker.ts through tsx), for tests that kill a worker outright.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { LoadedConfig } from '../../src/config/load';

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
