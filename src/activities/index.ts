// Builds every activity from its dependencies; the worker registers the result and workflows
// proxy its type (`import type`).
import type { EnvironmentFactory } from '../environments/factory';
import type { Logger } from '../logging';
import type { ToolRegistry } from '../registry/registry';
import type { ToolSettings } from '../registry/tool-entry';
import type { SessionStore } from '../store/session-store';
import { createCallModelActivity } from './call-model';
import { createExecuteToolActivity } from './execute-tool';
import type { ModelClients } from './model-clients';
import { createSessionActivities } from './session-activities';

export interface ActivityDeps {
  registry: ToolRegistry;
  store: SessionStore;
  environments: EnvironmentFactory;
  models: ModelClients;
  settings: ToolSettings;
  logger: Logger;
}

export function createActivities(deps: ActivityDeps) {
  return {
    ...createSessionActivities(deps),
    callModel: createCallModelActivity(deps),
    executeTool: createExecuteToolActivity(deps),
  };
}

export type HermesActivities = ReturnType<typeof createActivities>;
