// Builds every activity from its dependencies; the worker registers the result and workflows
// proxy its type (`import type`).
import type { Client } from '@temporalio/client';
import type { LoadedConfig } from '../config/load';
import type { EnvironmentFactory } from '../environments/factory';
import type { SecretRedactor } from '../environments/secret-redaction';
import type { HookRegistry } from '../hooks/hook-registry';
import type { Logger } from '../logging';
import type { ToolRegistry } from '../registry/registry';
import type { ToolSettings } from '../registry/tool-entry';
import type { MemoryStore } from '../memory/memory-store';
import type { SessionStore } from '../store/session-store';
import { createApprovalActivities, userConfigFile } from './approval-activities';
import { canonicalOwnFiles } from './assess-tool-call';
import { hermesSecretFiles } from '../approval-signals/command-assessment';
import { createBackgroundActivities } from './background-activities';
import type { HandedActivities } from './handed-activities';
import type { Semaphore } from '../semaphore';
import { createCallModelActivity } from './call-model';
import { createEnvironmentActivities } from './environment-activities';
import type { SignalSession } from './code-call-channel';
import { createExecuteToolActivity, createStoreRefusalsActivity } from './execute-tool';
import { guardStore } from './guarded-store';
import type { ModelClients } from './model-clients';
import { createSessionActivities } from './session-activities';
import { createStartVerificationActivity } from './start-verification';
import { createWorkflowStatusActivities } from './workflow-status-activities';
import { createCallMcpTool } from './mcp-call-tool';
import { createListMcpTools } from './mcp-list-tools';
import type { SessionWorkspaces } from '../environments/session-workspaces';
import type { McpConnectionPool } from '../mcp/connection-pool';
import { McpListingStore } from '../mcp/listing-store';
import { createMcpPool } from '../mcp/create-pool';
import { createTurnCheckpoints } from '../checkpoints/turn-checkpoints';
import { localSandbox } from '../environments/drivers';
import { recordedWorkspace } from '../workflows/recorded-workspace';
import { sessionKeyOf } from '../environments/local-environment';

export interface ActivityDeps {
  config: LoadedConfig;
  registry: ToolRegistry;
  store: SessionStore;
  environments: EnvironmentFactory;
  models: ModelClients;
  settings: ToolSettings;
  logger: Logger;
  /** Plugin and shell hooks, run on this worker around tool calls and sessions. */
  hooks: HookRegistry;
  /** Signals a session workflow (execute_code's tool calls ring it). */
  signalSession?: SignalSession;
  /** Built once per worker from its environment and config; every activity that hands output on uses it. */
  redactor: SecretRedactor;
  /** The durable memory; absent when memory is disabled (the tool then says it is not available). */
  memory?: MemoryStore;
  /** A client of the worker's own server: how sessions learn how other workflows ended. */
  client?: Client;
  /** Activities that wait outside the worker's slots (process watches, execute_code scripts; see handed-activities.ts). */
  handed?: HandedActivities;
  /** The execute_code scripts this worker runs at once (worker.max_concurrent_scripts). */
  scriptSlots?: Semaphore;
  /** The worker's live MCP connections (one pool per worker, shared by every session); built from the config when absent. */
  mcpPool?: McpConnectionPool;
  /** The workspaces of the sessions this worker serves (hooks and unsandboxed MCP servers may not lie in one). */
  workspaces?: SessionWorkspaces;
}

export function createActivities(unguarded: ActivityDeps) {
  // Every activity writes through the guard: store faults are waited out or fail loudly.
  const deps = { ...unguarded, store: guardStore(unguarded.store, { logger: unguarded.logger, fullRetryLimitMs: unguarded.config.store.full_retry_seconds * 1000 }) };
  const mcp = { ...deps, pool: deps.mcpPool ?? createMcpPool(deps.config, deps.logger, deps.workspaces), listings: new McpListingStore(deps.store) };
  // One sandbox answers what commands cannot see, for the gate and for searches alike.
  const sandbox = localSandbox(deps.config);
  const approvals = createApprovalActivities({ ...deps, mcpListings: mcp.listings, localSandbox: sandbox });
  // Tools read past sessions through the guarded store, like every other activity.
  const executeTool = createExecuteToolActivity({
    ...deps,
    assess: approvals.assessCommand,
    beforeChange: createTurnCheckpoints(checkpointSettings(deps.config), deps.logger),
    services: {
      sessions: deps.store,
      recallScope: deps.config.session_search.scope,
      secretFiles: () => canonicalOwnFiles(hermesSecretFiles(deps.config)),
      hiddenFromCommands: (handle) => (handle.backend === 'local' ? sandbox.hiddenFromCommands(recordedWorkspace(handle) ?? handle.cwd, sessionKeyOf(handle)) : undefined),
      redact: (text) => deps.redactor.redact(text),
      ...(deps.memory ? { memory: deps.memory } : {}),
    },
  });
  return {
    ...createSessionActivities({ ...deps, allowlistFile: userConfigFile(deps.config) }),
    ...createStartVerificationActivity(deps),
    listMcpTools: createListMcpTools(mcp),
    callMcpTool: createCallMcpTool(mcp),
    ...approvals,
    callModel: createCallModelActivity({ ...deps, retryUnreachable: deps.config.model.retry_unreachable, mcpListings: mcp.listings }),
    executeTool,
    storeRefusals: createStoreRefusalsActivity(executeTool),
    ...createEnvironmentActivities(deps),
    ...createBackgroundActivities(deps),
    ...createWorkflowStatusActivities(deps),
  };
}

function checkpointSettings(config: LoadedConfig) {
  const { checkpoints } = config;
  return {
    enabled: checkpoints.enabled,
    home: config.home,
    keep: checkpoints.keep,
    maxFiles: checkpoints.max_files,
    maxFileBytes: Math.round(checkpoints.max_file_mb * 1024 * 1024),
    maxGitBytes: Math.round(checkpoints.max_git_mb * 1024 * 1024),
    timeoutMs: checkpoints.timeout_seconds * 1000,
  };
}

export type HermesActivities = ReturnType<typeof createActivities>;
