// A scripted session whose worker serves a backend through a driver the test built (a real driver
// over a local stand-in SDK seam): like withScriptedSession, with `drivers` handed to the worker.
import type { LoadedConfig } from '../../src/config/load';
import type { PartialConfig } from '../../src/config/schema';
import { createDrivers } from '../../src/environments/drivers';
import type { Backend, EnvironmentDriver } from '../../src/environments/terminal-environment';
import { silentLogger } from '../../src/logging';
import type { ModelScriptInput } from '../../src/model/model-script';
import { startScriptedModelServer } from '../../src/model/scripted-model-server';
import { SqliteSessionStore } from '../../src/store/sqlite-session-store';
import { startSession } from '../../src/temporal/sessions';
import { createHermesWorker } from '../../src/temporal/worker';
import { testConfig, type Harness, type ScriptedSession } from './session-harness';

export async function withDriverSession<T>(
  harness: Harness,
  options: {
    script: ModelScriptInput;
    config: PartialConfig;
    /** Drivers that replace the configured ones, built from the session's final config. */
    drivers: (config: LoadedConfig) => Partial<Record<Backend, EnvironmentDriver>>;
    task?: string;
  },
  body: (session: ScriptedSession) => Promise<T>,
): Promise<T> {
  const model = await startScriptedModelServer({ script: options.script });
  const config = testConfig({ ...options.config, model: { base_url: model.url, ...options.config.model } });
  const store = new SqliteSessionStore(config.store.path);
  const bundlePath = process.env.HERMES_TEST_WORKFLOW_BUNDLE;
  const worker = await createHermesWorker({
    connection: harness.nativeConnection,
    config,
    store,
    logger: silentLogger,
    drivers: createDrivers(config, options.drivers(config)),
    ...(bundlePath ? { workflowBundle: { codePath: bundlePath } } : {}),
  });
  try {
    return await worker.runUntil(async () => {
      const handle = await startSession(harness.client, { task: options.task ?? 'stand-in session', config });
      return body({ config, store, model, handle });
    });
  } finally {
    await model.close();
    await store.close();
  }
}

/** What each backend's full-session test asks the scripted model to do: cd, files, an exit code. */
export const sandboxSessionScript = {
  turns: [
    { tool_calls: [{ name: 'terminal', arguments: { command: 'mkdir -p project && cd project && echo hello > greeting.txt && pwd' } }] },
    { tool_calls: [{ name: 'terminal', arguments: { command: 'cat greeting.txt && pwd' } }] },
    { tool_calls: [{ name: 'write_file', arguments: { path: 'notes.txt', content: 'written by the model\n' } }] },
    { tool_calls: [{ name: 'terminal', arguments: { command: 'cat notes.txt; exit 3' } }] },
    { content: 'All done in the sandbox.' },
  ],
};

/** The tool results that script must produce when the session's workdir is `workdir`. */
export function expectSandboxSessionResults(results: Record<string, unknown>[], workdir: string): void {
  expect(results).toHaveLength(4);
  expect(results[0]).toMatchObject({ output: `${workdir}/project`, exit_code: 0, error: null });
  // The cd of the first command carried over to the second, on whichever worker ran it.
  expect(results[1]).toMatchObject({ output: `hello\n${workdir}/project`, exit_code: 0 });
  expect(JSON.stringify(results[2])).not.toMatch(/"error":"[^"]/);
  expect(results[3]).toMatchObject({ output: 'written by the model', exit_code: 3 });
}
