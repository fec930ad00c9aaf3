// Client-side helpers to start and follow sessions, shared by the CLI and the tests.
import { randomUUID } from 'node:crypto';
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { ApprovalSurface } from '../approval-signals/approval-types';
import { loadApproverKey, sessionApprovers, signSessionStart } from '../approval-signals/approver-key';
import type { LoadedConfig } from '../config/load';
import type { agentSession } from '../workflows/agent-session';
import type { DelegationSettings } from '../workflows/delegation-types';
import type { SessionInput, SessionLimits } from '../workflows/session-types';
import { HermesModel, HermesParentSession, HermesRootSession, HermesStatus, HermesToolCalls } from './search-attributes';

export interface StartSessionOptions {
  task: string;
  /** Who can answer approvals (default `async`: later, from the CLI, webhook or UI). */
  surface?: ApprovalSurface;
  config: LoadedConfig;
  sessionId?: string;
  parentSessionId?: string;
  limits?: Partial<SessionLimits>;
  taskQueue?: string;
}

export type SessionHandle = WorkflowHandle<typeof agentSession>;

export function workflowIdFor(sessionId: string): string {
  return `hermes-session-${sessionId}`;
}

export function newSessionId(): string {
  return randomUUID().replace(/-/g, '').slice(0, 16);
}

export function sessionInputFrom(options: StartSessionOptions, sessionId: string): SessionInput {
  const { config } = options;
  return {
    sessionId,
    task: options.task,
    model: config.model.name,
    ...(config.model.base_url ? { baseUrl: config.model.base_url } : {}),
    environment: { backend: config.terminal.backend, cwd: sessionWorkdir(config), sessionId },
    ...(toolTaskQueueFor(config) ? { toolTaskQueue: toolTaskQueueFor(config) } : {}),
    toolsets: config.session.toolsets,
    ...(config.session.disabled_toolsets.length ? { disabledToolsets: config.session.disabled_toolsets } : {}),
    maxTurns: config.session.max_turns,
    ...(options.parentSessionId ? { parentSessionId: options.parentSessionId } : {}),
    limits: {
      modelTimeoutSeconds: config.model.timeout_seconds,
      modelMaxAttempts: config.model.max_attempts,
      modelRetryInitialIntervalMs: config.model.retry_initial_interval_ms,
      toolTimeoutSeconds: config.terminal.max_foreground_timeout_seconds + 60,
      maxParallelToolCalls: config.session.max_parallel_tool_calls,
      maxParallelWatches: config.session.max_parallel_watches,
      ...options.limits,
    },
    delegation: delegationSettingsFrom(config),
    approvals: {
      mode: config.approvals.mode,
      surface: options.surface ?? 'async',
      unattendedPolicy: config.approvals.unattended_policy,
      timeoutSeconds: config.approvals.timeout_seconds,
      webhook: Boolean(config.approvals.webhook.url),
      // Public keys only: the private key stays in the home folder of whoever signs.
      approvers: sessionApprovers(config.home, config.approvals.approvers),
      acceptUnsigned: config.approvals.accept_unsigned,
    },
  };
}

/** The `delegation:` block as sessions carry it; the key stays with the workers' config. */
export function delegationSettingsFrom(config: LoadedConfig): DelegationSettings {
  const delegation = config.delegation;
  return {
    maxConcurrentChildren: delegation.max_concurrent_children,
    maxSpawnDepth: delegation.max_spawn_depth,
    maxIterations: delegation.max_iterations,
    childTimeoutSeconds: delegation.child_timeout_seconds,
    maxSummaryChars: delegation.max_summary_chars,
    orchestratorEnabled: delegation.orchestrator_enabled,
    ...(delegation.model ? { model: delegation.model } : {}),
    ...(delegation.base_url ? { baseUrl: delegation.base_url } : {}),
    subagentAutoApprove: delegation.subagent_auto_approve,
  };
}

/** Where a session's commands start: the `--cwd` locally, the backend's workdir elsewhere. */
export function sessionWorkdir(config: LoadedConfig): string {
  const { backend } = config.terminal;
  if (backend === 'local') return config.session.cwd;
  return config.terminal[backend].workdir ?? '~';
}

function toolTaskQueueFor(config: LoadedConfig): string | undefined {
  return config.terminal[config.terminal.backend].task_queue;
}

export async function startSession(client: Client, options: StartSessionOptions): Promise<SessionHandle> {
  const sessionId = options.sessionId ?? newSessionId();
  const workflowId = workflowIdFor(sessionId);
  const unsigned = sessionInputFrom(options, sessionId);
  // Workers run a root session only when a key they trust signed it (start-signature.ts).
  const input: SessionInput = { ...unsigned, startSignature: signSessionStart(loadApproverKey(options.config.home, { create: true }), workflowId, unsigned) };
  return client.workflow.start<typeof agentSession>('agentSession', {
    taskQueue: options.taskQueue ?? options.config.temporal.task_queue,
    workflowId,
    args: [input],
    memo: { task: options.task.slice(0, 2000) },
    staticSummary: options.task.slice(0, 200),
    typedSearchAttributes: [
      { key: HermesStatus, value: 'running' },
      { key: HermesModel, value: input.model },
      { key: HermesToolCalls, value: 0 },
      { key: HermesRootSession, value: sessionId },
      ...(input.parentSessionId ? [{ key: HermesParentSession, value: input.parentSessionId }] : []),
    ],
  });
}
