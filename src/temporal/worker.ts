// Builds a worker that serves session workflows and tool activities, wired from configuration.
import path from 'node:path';
import { Client } from '@temporalio/client';
import { type NativeConnection, Worker, bundleWorkflowCode, type WorkflowBundleOption } from '@temporalio/worker';
import { codeToolCallSignal, type CodeToolCallRequest } from '../workflows/code-call-messages';
import { createActivities } from '../activities';
import { HandedActivities } from '../activities/handed-activities';
import { Semaphore } from '../semaphore';
import { loadCommandClassifier } from '../approval-signals/classify-command';
import { ModelClients } from '../activities/model-clients';
import type { LoadedConfig } from '../config/load';
import { createDrivers } from '../environments/drivers';
import { EnvironmentFactory } from '../environments/factory';
import { createSecretRedactor } from '../environments/secret-redaction';
import { workspacesServedFrom } from '../environments/session-workspaces';
import type { EnvironmentDriver } from '../environments/terminal-environment';
import type { Logger } from '../logging';
import { loadWorkerExtensions } from '../plugins/worker-extensions';
import type { McpConnectionPool } from '../mcp/connection-pool';
import { createMcpPool } from '../mcp/create-pool';
import { discoverBuiltinTools } from '../registry/discovery';
import { registry as defaultRegistry, type ToolRegistry } from '../registry/registry';
import type { ToolSettings } from '../registry/tool-entry';
import { createMemoryStore } from '../memory/create-memory-store';
import type { SessionStore } from '../store/session-store';
import { workflowTaskPolls } from './worker-tuning';

export const WORKFLOWS_PATH = path.join(__dirname, '..', 'workflows');

/**
 * Workflow modules the sandbox loads once and shares, deep-frozen, between all sessions, instead of
 * one copy per session: only pure ones may be listed. Checking a decision's signature builds
 * noble's Ed25519 base-point table on first use (about 35 ms and 1 MB); in per-session copies every
 * approval paid that again, and again after every eviction from the workflow cache.
 */
export const WORKFLOW_PRELOAD_MODULES = [path.join(__dirname, '..', 'approval-signals', 'decision-signature')];

/**
 * How often a watch waiting outside its activity tells the server it is alive (its heartbeat
 * timeout is a minute): each heartbeat is a write on the server, and a session may watch hundreds.
 * A script waiting outside its activity beats as often as a tool call does (heartbeat.ts).
 */
const WATCH_HEARTBEAT_MS = 15_000;

export interface HermesWorkerOptions {
  connection: NativeConnection;
  config: LoadedConfig;
  store: SessionStore;
  logger: Logger;
  registry?: ToolRegistry;
  /** Task queue override (tests give each worker its own). */
  taskQueue?: string;
  /** A pre-built bundle; otherwise the workflows are bundled now. */
  workflowBundle?: WorkflowBundleOption;
  /** Terminal backends to serve instead of those built from the config (tests give stand-ins). */
  drivers?: EnvironmentDriver[];
}

let builtinsLoaded = false;

/** Loads the built-in tools into the process-wide registry once. */
export function loadBuiltinTools(logger: Logger): void {
  if (builtinsLoaded) return;
  defaultRegistry.setLogger(logger);
  discoverBuiltinTools(undefined, logger);
  builtinsLoaded = true;
}

export function toolSettingsFrom(config: LoadedConfig): ToolSettings {
  return {
    terminal: {
      defaultTimeoutSeconds: config.terminal.timeout_seconds,
      maxForegroundTimeoutSeconds: config.terminal.max_foreground_timeout_seconds,
      maxOutputChars: config.terminal.max_output_chars,
      parallel: config.session.parallel_terminal,
    },
  };
}

/** Bundles the workflow code (webpack); do it once per process and share the result. */
export async function bundleWorkflows(): Promise<WorkflowBundleOption> {
  const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, preloadModules: WORKFLOW_PRELOAD_MODULES, logger: quietBundlerLogger });
  return { code };
}

export async function createHermesWorker(options: HermesWorkerOptions): Promise<Worker> {
  const { config, logger } = options;
  const registry = options.registry ?? defaultRegistry;
  if (registry === defaultRegistry) loadBuiltinTools(logger);
  // Plugins load now, before any task is polled: workflow and activity names never change with them.
  // Hooks, user plugins and unsandboxed MCP servers may lie in no session's workspace: the
  // worker's own folder, those of the sessions running now, and each it serves from now on.
  const workspaces = await workspacesServedFrom(config.session.cwd, options.store);
  // Before the plugins: the drivers add the host folders their sessions write (a container's binds).
  const environments = new EnvironmentFactory(options.drivers ?? createDrivers(config), workspaces);
  const extensions = await loadWorkerExtensions(config, registry, logger, process.env, workspaces);
  await loadCommandClassifier();
  // Say at start-up when local commands run unsandboxed or cannot run at all.
  const sandbox = environments.localSandboxState();
  if (sandbox?.warning) logger.warn(sandbox.warning);
  else if (sandbox) logger.info(sandbox.summary);
  // Settings that give up a guarantee of the approval layer are said aloud too.
  if (config.approvals.accept_unsigned) logger.warn('approvals.accept_unsigned is on: anyone who reaches the Temporal server can answer approvals');
  if (config.approvals.accept_unsigned_starts) logger.warn('approvals.accept_unsigned_starts is on: anyone who reaches the Temporal server can start a session with its own settings');
  if (config.approvals.mode === 'off') logger.warn('approvals.mode is off: dangerous commands run without asking');
  if (config.delegation.max_concurrent_children > 10) {
    logger.warn(`delegation.max_concurrent_children is ${config.delegation.max_concurrent_children}: each sub-agent is a session of its own, so model cost grows with every one running at once`);
  }
  // The worker's own connection serves as a client too (a NativeConnection is a ConnectionLike).
  const client = new Client({ connection: options.connection, namespace: config.temporal.namespace });
  // One pool of MCP connections per worker, shared by its sessions; closed with the worker.
  const mcpPool = createMcpPool(config, logger, workspaces);
  const handed = new HandedActivities(client.activity, { heartbeatMs: WATCH_HEARTBEAT_MS, logger });
  const activities = createActivities({
    mcpPool,
    handed,
    scriptSlots: new Semaphore(config.worker.max_concurrent_scripts),
    workspaces,
    config,
    client,
    registry,
    store: options.store,
    environments,
    models: new ModelClients({
      apiKey: config.model.api_key,
      baseUrl: config.model.base_url,
      timeoutSeconds: config.model.timeout_seconds,
      // Sub-agents' endpoint: its own key, else the model's (as before); no other endpoint gets one.
      ...(config.delegation.base_url && (config.delegation.api_key ?? config.model.api_key)
        ? { keysByBaseUrl: { [config.delegation.base_url]: (config.delegation.api_key ?? config.model.api_key) as string } }
        : {}),
    }),
    settings: toolSettingsFrom(config),
    logger,
    hooks: extensions.hooks,
    signalSession: (workflowId: string, request: CodeToolCallRequest) => client.workflow.getHandle(workflowId).signal(codeToolCallSignal, request),
    // The worker's own secrets (its variables, the config's keys) are what tool output must not show.
    redactor: createSecretRedactor({ env: process.env, config }),
    memory: createMemoryStore(config, options.store),
  });
  const worker = await Worker.create({
    connection: options.connection,
    namespace: config.temporal.namespace,
    taskQueue: options.taskQueue ?? config.temporal.task_queue,
    ...(options.workflowBundle
      ? { workflowBundle: options.workflowBundle }
      : { workflowsPath: WORKFLOWS_PATH, bundlerOptions: { preloadModules: WORKFLOW_PRELOAD_MODULES } }),
    activities,
    maxConcurrentActivityTaskExecutions: config.worker.max_concurrent_activities,
    maxConcurrentWorkflowTaskExecutions: config.worker.max_concurrent_workflow_tasks,
    maxConcurrentWorkflowTaskPolls: workflowTaskPolls(config),
    maxCachedWorkflows: config.worker.max_cached_workflows,
    maxEagerActivityReservationsPerWorkflowTask: config.worker.max_eager_activities_per_task,
    shutdownGraceTime: `${config.worker.shutdown_grace_seconds} seconds`,
    // A cancellation or termination reaches a running tool only in a heartbeat's response: the
    // SDK's default throttle (0.8 × the heartbeat timeout, up to 60 s) would hold it back for
    // many seconds. One second keeps a cancelled command's death within about two.
    maxHeartbeatThrottleInterval: '1 second',
    defaultHeartbeatThrottleInterval: '1 second',
  });
  workerEnvironments.set(worker, { environments, mcpPool, handed, graceMs: config.worker.shutdown_grace_seconds * 1000 });
  return worker;
}

const workerEnvironments = new WeakMap<Worker, { environments: EnvironmentFactory; mcpPool: McpConnectionPool; handed: HandedActivities; graceMs: number }>();

/**
 * Gives the watches and scripts a worker held outside its slots back to the server (a running
 * script first gets `worker.shutdown_grace_seconds` to end, as running tools do), and closes the
 * backend connections (ssh, docker) and MCP servers it kept; call once it has stopped.
 */
export async function releaseWorkerEnvironments(worker: Worker): Promise<void> {
  const kept = workerEnvironments.get(worker);
  await kept?.handed.releaseAll(kept.graceMs);
  await kept?.mcpPool.closeAll();
  await kept?.environments.releaseAll();
}

const quietBundlerLogger = {
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  log: () => undefined,
  warn: (message: string, meta?: Record<string, unknown>) => console.warn(message, meta ?? ''),
  error: (message: string, meta?: Record<string, unknown>) => console.error(message, meta ?? ''),
};
