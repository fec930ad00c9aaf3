// Runs real sessions for integration tests: a worker on its own task queue (against the dev
// server from the global setup), a scripted model over HTTP, and a temporary store and cwd.
import { mkdirSync, mkdtempSync } from 'node:fs';
import path from 'node:path';
import { CancelledFailure, Client, Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor, WorkflowFailedError } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { ApprovalSurface } from '../../src/approval-signals/approval-types';
import { loadConfig, type LoadedConfig } from '../../src/config/load';
import type { PartialConfig } from '../../src/config/schema';
import { silentLogger } from '../../src/logging';
import { startScriptedModelServer, type ScriptedModelServer } from '../../src/model/scripted-model-server';
import type { ModelScriptInput } from '../../src/model/model-script';
import { createSessionStore } from '../../src/store/create-session-store';
import type { SessionStore } from '../../src/store/session-store';
import { installTemporalRuntime } from '../../src/temporal/runtime';
import { createHermesWorker, releaseWorkerEnvironments, WORKFLOWS_PATH } from '../../src/temporal/worker';
import { startSession, type SessionHandle } from '../../src/temporal/sessions';
import type { SessionLimits } from '../../src/workflows/session-types';
import { tempDir } from './temp-dirs';
import { waitFor } from './wait';

export interface Harness {
  address: string;
  client: Client;
  nativeConnection: NativeConnection;
  close(): Promise<void>;
}

export async function connectHarness(): Promise<Harness> {
  installTemporalRuntime(silentLogger);
  const address = process.env.HERMES_TEST_TEMPORAL_ADDRESS;
  if (!address) throw new Error('HERMES_TEST_TEMPORAL_ADDRESS is not set: run integration tests through jest (global setup)');
  const retries = settlingRetries();
  const connection = await Connection.connect({ address, interceptors: [retries.interceptor] });
  const nativeConnection = await NativeConnection.connect({ address });
  return {
    address,
    client: new Client({ connection }),
    nativeConnection,
    close: async () => {
      await retries.settle();
      await connection.close();
      await nativeConnection.close();
    },
  };
}

/**
 * The client's usual retries, except that none is scheduled once the harness closes, and closing
 * waits for those already scheduled: a retry whose timer fires after the channel closed throws
 * "Channel has been shut down" into the test run, failing a suite whose tests all passed.
 */
function settlingRetries() {
  const defaults = defaultGrpcRetryOptions();
  let closing = false;
  let lastRetryAt = 0;
  const interceptor = makeGrpcRetryInterceptor({
    retryableDecider: (attempt, status) => !closing && defaults.retryableDecider(attempt, status),
    delayFunction: (attempt, status) => {
      const delay = defaults.delayFunction(attempt, status);
      lastRetryAt = Math.max(lastRetryAt, Date.now() + delay);
      return delay;
    },
  });
  const settle = async () => {
    closing = true;
    const wait = lastRetryAt - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait + 100));
  };
  return { interceptor, settle };
}

let counter = 0;
export function uniqueName(prefix: string): string {
  counter += 1;
  return `${prefix}-${process.pid}-${Date.now().toString(36)}-${counter}`;
}

export { tempDir };

/**
 * A temporary folder that sandboxed commands can see (the sandbox's /tmp is private): for a fake
 * home whose secrets the sandbox must hide, rather than one it never shows at all.
 */
export function sandboxVisibleTempDir(prefix: string): string {
  const parent = path.resolve(__dirname, '../../.tmp/test-dirs');
  mkdirSync(parent, { recursive: true });
  return mkdtempSync(path.join(parent, prefix));
}

/** Config for a test: its own home (store), cwd and task queue; model calls retry fast. */
export function testConfig(overrides: PartialConfig = {}, dirs = { home: tempDir('hermes-home-'), cwd: tempDir('hermes-cwd-') }): LoadedConfig {
  return loadConfig({
    env: { HERMES_TEMPORAL_HOME: dirs.home, PATH: process.env.PATH },
    projectDir: dirs.cwd,
    flags: {
      ...overrides,
      model: { name: 'scripted', api_key: 'test-key', retry_initial_interval_ms: 100, ...overrides.model },
      temporal: { task_queue: uniqueName('hermes-test'), ...overrides.temporal },
    },
  });
}

export interface WorkerContext {
  config: LoadedConfig;
  store: SessionStore;
  worker: Worker;
}

export async function createTestWorker(
  harness: Harness,
  config: LoadedConfig,
  store?: SessionStore,
  /** Serve this task queue instead of the configured one (e.g. a backend's tools queue). */
  taskQueue?: string,
): Promise<WorkerContext> {
  const sessionStore = store ?? createSessionStore(config);
  const bundlePath = process.env.HERMES_TEST_WORKFLOW_BUNDLE;
  const worker = await createHermesWorker({
    connection: harness.nativeConnection,
    config,
    store: sessionStore,
    logger: silentLogger,
    ...(taskQueue ? { taskQueue } : {}),
    ...(bundlePath ? { workflowBundle: { codePath: bundlePath } } : {}),
  });
  return { config, store: sessionStore, worker };
}

export interface ScriptedSession {
  config: LoadedConfig;
  store: SessionStore;
  model: ScriptedModelServer;
  handle: SessionHandle;
}

/**
 * Starts a worker and a scripted model, runs `body` with a started session while the worker
 * runs, then shuts everything down.
 */
export async function withScriptedSession<T>(
  harness: Harness,
  options: {
    script: ModelScriptInput;
    task?: string;
    config?: PartialConfig;
    limits?: Partial<SessionLimits>;
    surface?: ApprovalSurface;
    /** The session's home folder (e.g. with plugins in it); a fresh temporary one otherwise. */
    home?: string;
  },
  body: (session: ScriptedSession) => Promise<T>,
): Promise<T> {
  const model = await startScriptedModelServer({ script: options.script });
  const dirs = options.home ? { home: options.home, cwd: tempDir('hermes-cwd-') } : undefined;
  const config = testConfig({ ...options.config, model: { base_url: model.url, ...options.config?.model } }, dirs);
  const { store, worker } = await createTestWorker(harness, config);
  try {
    return await worker.runUntil(async () => {
      const handle = await startSession(harness.client, {
        task: options.task ?? uniqueName('task'),
        config,
        limits: options.limits,
        surface: options.surface,
      });
      return body({ config, store, model, handle });
    });
  } finally {
    await releaseWorkerEnvironments(worker);
    await model.close();
    await store.close();
  }
}

/** Every payload in a history as text (payloads are base64 in the raw events). */
export function historyText(history: { events?: unknown[] | null }): string {
  return JSON.stringify(history.events ?? [], (key, value: unknown) =>
    key === 'data' && typeof value === 'string' ? Buffer.from(value, 'base64').toString('utf8') : value,
  );
}

export function sessionIdOf(handle: SessionHandle): string {
  return handle.workflowId.replace(/^hermes-session-/, '');
}

/** The session's tool results (parsed JSON), in transcript order. */
export async function toolResults(store: SessionStore, handle: SessionHandle): Promise<Record<string, unknown>[]> {
  const messages = await store.getMessages(sessionIdOf(handle));
  return messages.filter((message) => message.role === 'tool').map((message) => JSON.parse(message.content ?? '{}') as Record<string, unknown>);
}


/** Replays the session's history against the workflow code: throws if a decision would differ. */
export async function replaySessionHistory(handle: SessionHandle): Promise<void> {
  const bundlePath = process.env.HERMES_TEST_WORKFLOW_BUNDLE;
  const history = await handle.fetchHistory();
  await Worker.runReplayHistory(bundlePath ? { workflowBundle: { codePath: bundlePath } } : { workflowsPath: WORKFLOWS_PATH }, history, handle.workflowId);
}

/** The session ended cancelled: its result is a cancellation, and (given its store) it is stored so. */
export async function expectCancelled(handle: SessionHandle, store?: SessionStore): Promise<void> {
  const failure = await handle.result().catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(WorkflowFailedError);
  expect((failure as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
  if (store) await waitFor(async () => (await store.getSession(sessionIdOf(handle)))?.status === 'cancelled', { timeoutMs: 10_000, what: 'the session to be stored cancelled' });
}
