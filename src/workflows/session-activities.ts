// The activity proxies a session uses, with their timeouts and retry policies in one place.
import { ActivityCancellationType, proxyActivities, proxyLocalActivities, type ActivityOptions } from '@temporalio/workflow';
import type { HermesActivities } from '../activities';
import type { SessionLimits } from './session-types';

export function sessionActivities(limits: SessionLimits, toolTaskQueue?: string) {
  const onToolQueue = toolTaskQueue ? { taskQueue: toolTaskQueue } : {};
  const modelOptions: ActivityOptions = {
    startToCloseTimeout: `${limits.modelTimeoutSeconds + 30} seconds`,
    heartbeatTimeout: '1 minute',
    retry: {
      initialInterval: limits.modelRetryInitialIntervalMs,
      backoffCoefficient: 2,
      maximumInterval: '1 minute',
      maximumAttempts: limits.modelMaxAttempts,
    },
  };
  // Tool errors come back as results, so a retry means the infrastructure failed (DESIGN.md rule 6).
  const toolOptions: ActivityOptions = {
    ...onToolQueue,
    startToCloseTimeout: `${limits.toolTimeoutSeconds} seconds`,
    heartbeatTimeout: `${limits.toolHeartbeatTimeoutSeconds} seconds`,
    retry: { initialInterval: '1 second', maximumAttempts: 5 },
  };
  // execute_code waits for its script's tool calls, and so for their approvals: hours, not minutes.
  // Its heartbeats (not this bound) tell when its worker died.
  const codeOptions: ActivityOptions = { ...toolOptions, startToCloseTimeout: '24 hours' };
  const bookkeeping = proxyActivities<HermesActivities>({ startToCloseTimeout: '1 minute', retry: { maximumAttempts: 10 } });
  // Assessing a call reads the session's environment (links, processes, digests): it runs where the
  // tools run. Sessions recorded before the gate ran without local activities replay with one.
  const assessOptions: ActivityOptions = { startToCloseTimeout: '1 minute', retry: { initialInterval: '1 second', maximumAttempts: 5 } };
  const { assessCommand } = proxyActivities<HermesActivities>({ ...assessOptions, ...onToolQueue });
  // A batch judges up to ASSESSED_TOGETHER calls, a few at a time: a minute each is ample.
  const { assessCommands } = proxyActivities<HermesActivities>({ ...assessOptions, startToCloseTimeout: '3 minutes', ...onToolQueue });
  const assessCommandLocally = toolTaskQueue ? assessCommand : proxyLocalActivities<HermesActivities>(assessOptions).assessCommand;
  // Checking a root session's start signature reads only the worker's config and store: local.
  const { verifySessionStart } = proxyLocalActivities<HermesActivities>({ startToCloseTimeout: '30 seconds', retry: { maximumAttempts: 5 } });
  const { reviewCommand } = proxyActivities<HermesActivities>({ startToCloseTimeout: '2 minutes', retry: { maximumAttempts: 2 } });
  const { notifyApproval } = proxyActivities<HermesActivities>({ startToCloseTimeout: '30 seconds', retry: { maximumAttempts: 3 } });
  // Reaching the backend may take a while (image, sandbox); it is safe to retry.
  const environment = proxyActivities<HermesActivities>({
    ...onToolQueue,
    startToCloseTimeout: '10 minutes',
    retry: { initialInterval: '2 seconds', maximumAttempts: 5 },
  });
  // Watching a background process can take as long as the process: heartbeats tell it is alive.
  const { watchBackgroundProcess } = proxyActivities<HermesActivities>({
    ...onToolQueue,
    cancellationType: ActivityCancellationType.TRY_CANCEL,
    startToCloseTimeout: '24 hours',
    heartbeatTimeout: '1 minute',
    retry: { initialInterval: '2 seconds', maximumAttempts: 20 },
  });
  const { callModel } = proxyActivities<HermesActivities>(modelOptions);
  const { executeTool, callMcpTool } = proxyActivities<HermesActivities>(toolOptions);
  // Refused calls run nothing: writing fifty of them takes well under a minute.
  const refusalOptions: ActivityOptions = { ...onToolQueue, startToCloseTimeout: '1 minute', retry: { initialInterval: '1 second', maximumAttempts: 5 } };
  const { storeRefusals } = proxyActivities<HermesActivities>(refusalOptions);
  // Listing connects to every server (npx may first download one): bounded by the connect timeouts.
  const { listMcpTools } = proxyActivities<HermesActivities>({ startToCloseTimeout: '5 minutes', heartbeatTimeout: '30 seconds', retry: { initialInterval: '2 seconds', maximumAttempts: 3 } });
  return {
    modelOptions,
    toolOptions,
    codeOptions,
    refusalOptions,
    verifySessionStart,
    prepareSession: bookkeeping.prepareSession,
    finishSession: bookkeeping.finishSession,
    addToAllowlist: bookkeeping.addToAllowlist,
    appendSessionMessage: bookkeeping.appendSessionMessage,
    appendToolResult: bookkeeping.appendToolResult,
    appendSubagentReport: bookkeeping.appendSubagentReport,
    closedWorkflows: bookkeeping.closedWorkflows,
    watchBackgroundProcess,
    assessCommand,
    assessCommands,
    assessCommandLocally,
    reviewCommand,
    notifyApproval,
    callModel,
    executeTool,
    storeRefusals,
    callMcpTool,
    listMcpTools,
    startEnvironment: environment.startEnvironment,
    destroyEnvironment: environment.destroyEnvironment,
  };
}

export type SessionActivities = ReturnType<typeof sessionActivities>;
