// Activities of the approval flow: assess a tool call (a recorded activity, so replay stays
// deterministic), smart review, the permanent allowlist, webhooks.
import type { PendingApproval } from '../approval-signals/approval-types';
import { addToCommandAllowlist } from '../approval-signals/allowlist-file';
import { reviewCommand as reviewWithModel, type SmartVerdict } from '../approval-signals/smart-approval';
import { postPendingApproval } from '../approval-signals/webhook';
import { visibleApproval } from '../approval-signals/visible-text';
import type { LoadedConfig } from '../config/load';
import { createSecretRedactor, type SecretRedactor } from '../environments/secret-redaction';
import type { EnvironmentFactory } from '../environments/factory';
import type { ToolRegistry } from '../registry/registry';
import type { HookRegistry } from '../hooks/hook-registry';
import type { SessionStore } from '../store/session-store';
import { userConfigFile } from '../approval-signals/command-assessment';
import { createAssessToolCall } from './assess-tool-call';
import { createAssessToolCalls } from './assess-tool-calls';
import type { ModelClients } from './model-clients';
import type { LocalSandbox } from '../environments/local-sandbox';
import type { McpListingStore } from '../mcp/listing-store';

export { userConfigFile } from '../approval-signals/command-assessment';
export type { AssessCommandInput } from './assess-tool-call';

export function createApprovalActivities(deps: {
  store: SessionStore;
  config: LoadedConfig;
  models: ModelClients;
  registry: ToolRegistry;
  environments: EnvironmentFactory;
  redactor?: SecretRedactor;
  /** pre_tool_call hooks run at assessment, before anyone is asked. */
  hooks?: HookRegistry;
  mcpListings?: McpListingStore;
  localSandbox?: LocalSandbox;
}) {
  const { config } = deps;
  const redactor = deps.redactor ?? createSecretRedactor({ env: process.env, config });
  const assessCommand = createAssessToolCall({ ...deps, redactor });
  return {
    /** Assesses any tool call whose tool declares `assess` (the name is kept from when only terminal calls were). */
    assessCommand,
    /** Several calls of one reply, in order: as many as fit in one result (assess-tool-calls.ts). */
    assessCommands: createAssessToolCalls(deps.store, assessCommand),

    async reviewCommand(input: { command: string; description: string; model: string; baseUrl?: string }): Promise<SmartVerdict> {
      const smart = config.approvals.smart;
      const client = smart.base_url || smart.api_key ? deps.models.forEndpoint(smart.base_url, smart.api_key) : deps.models.get(input.baseUrl);
      return reviewWithModel(client, { model: smart.model ?? input.model, timeoutMs: smart.timeout_seconds * 1000 }, input.command, input.description);
    },

    async addToAllowlist(input: { keys: string[] }): Promise<void> {
      await addToCommandAllowlist(userConfigFile(config), input.keys);
    },

    async notifyApproval(input: { sessionId: string; workflowId: string; approval: PendingApproval }): Promise<void> {
      const webhook = config.approvals.webhook;
      if (!webhook.url) return;
      await postPendingApproval(
        { url: webhook.url, secret: webhook.secret, timeoutMs: webhook.timeout_seconds * 1000 },
        {
          type: 'approval_pending',
          sessionId: input.sessionId,
          workflowId: input.workflowId,
          // The webhook's receiver sees the command as the CLI shows it: secrets hidden (but never
          // text that could be code, which would hide what runs), controls escaped.
          approval: visibleApproval({ ...redactor.redactValue(input.approval), command: redactor.redactForApproval(input.approval.command) }),
          choices: input.approval.allowAlways ? ['once', 'session', 'always', 'deny'] : ['once', 'session', 'deny'],
          sentAt: new Date().toISOString(),
        },
      );
    },
  };
}
