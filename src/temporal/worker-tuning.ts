// How many workflow tasks a worker polls for at once, derived from its configuration.
import type { LoadedConfig } from '../config/load';

/**
 * As configured, else half the workflow task slots, the SDK's advice (its own default, 10, left
 * tasks queued for seconds while the worker idled). At least 2 and at most the slots: the SDK's bounds.
 */
export function workflowTaskPolls(config: Pick<LoadedConfig, 'worker'>): number {
  const slots = config.worker.max_concurrent_workflow_tasks;
  return Math.min(slots, Math.max(2, config.worker.max_concurrent_workflow_task_polls ?? Math.floor(slots / 2)));
}
