// Activities of the approval flow: assess a terminal call (run as a local activity, so the verdict
// is recorded and replay stays deterministic), smart review, the permanent allowlist, webhooks.
import os from 'node:os';
import path from 'node:path';
import type { CommandAssessment, PendingApproval } from '../approval-signals/approval-types';
import { addToCommandAllowlist } from '../approval-signals/allowlist-file';
import { classifyCommand } from '../approval-signals/classify-command';
import { matchDenyRule } from '../approval-signals/deny-rules';
import { reviewCommand as reviewWithModel, type SmartVerdict } from '../approval-signals/smart-approval';
import type { CommandVerdict } from '../approval-signals/verdict';
import { postPendingApproval } from '../approval-signals/webhook';
import type { LoadedConfig } from '../config/load';
import { createSecretRedactor, type SecretRedactor } from '../environments/secret-redaction';
import type { EnvironmentHandle } from '../environments/terminal-environment';
import { parseToolArguments } from '../registry/handle-function-call';
import type { SessionStore } from '../store/session-store';
import type { ModelClients } from './model-clients';

export interface AssessCommandInput {
  sessionId: string;
  assistantSeq: number;
  toolCallId: string;
  environment: EnvironmentHandle;
}

const MAX_VERDICT_COMMANDS = 20;
const MAX_TEXT = 300;
/** Backends whose commands run in a disposable sandbox rather than on a host. */
const ISOLATED_BACKENDS = new Set(['docker', 'singularity', 'modal', 'daytona', 'vercel_sandbox']);

export function userConfigFile(config: Pick<LoadedConfig, 'home'>): string {
  return path.join(config.home, 'config.yaml');
}

export function createApprovalActivities(deps: { store: SessionStore; config: LoadedConfig; models: ModelClients; redactor?: SecretRedactor }) {
  const { config } = deps;
  const redactor = deps.redactor ?? createSecretRedactor({ env: process.env, config });
  return {
    async assessCommand(input: AssessCommandInput): Promise<CommandAssessment> {
      // A sandbox with host paths mounted can reach the host: it is checked like one.
      const isolated = ISOLATED_BACKENDS.has(input.environment.backend) && input.environment.details?.hostMounts !== true;
      const assistant = await deps.store.getMessage(input.sessionId, input.assistantSeq);
      const call = assistant?.toolCalls?.find((candidate) => candidate.id === input.toolCallId);
      const args = parseToolArguments(call?.arguments);
      if (!args || typeof args.command !== 'string') return { isolated };
      const session = await deps.store.getSession(input.sessionId);
      const workdir = typeof args.workdir === 'string' ? path.resolve(input.environment.cwd, args.workdir) : undefined;
      const workspaceRoot = session?.cwd ?? input.environment.cwd;
      const verdict = classifyCommand(args.command, {
        backend: input.environment.backend,
        cwd: workdir ?? input.environment.cwd,
        workspaceRoot,
        home: os.homedir(),
        protectedFiles: [userConfigFile(config), path.join(workspaceRoot, 'hermes-temporal.yaml'), path.join(process.cwd(), 'hermes-temporal.yaml')],
      });
      const deniedBy = matchDenyRule(args.command, verdict, config.approvals.deny);
      return { command: args.command, verdict: bounded(verdict), isolated, ...(deniedBy ? { deniedBy } : {}) };
    },

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
          // The webhook's receiver sees the command as the CLI shows it: secrets hidden.
          approval: redactor.redactValue(input.approval),
          choices: input.approval.allowAlways ? ['once', 'session', 'always', 'deny'] : ['once', 'session', 'deny'],
          sentAt: new Date().toISOString(),
        },
      );
    },
  };
}

/** Verdicts land in workflow history: keep them small whatever the command. */
function bounded(verdict: CommandVerdict): CommandVerdict {
  const clip = (text: string) => (text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text);
  return {
    ...verdict,
    // A key is the rule id plus a normalised argument prefix: long commands share their first 500 chars.
    rules: verdict.rules.slice(0, MAX_VERDICT_COMMANDS).map((rule) => ({ ...rule, command: clip(rule.command), key: rule.key.slice(0, 500) })),
    commands: verdict.commands.slice(0, MAX_VERDICT_COMMANDS).map((command) => ({
      ...command,
      text: clip(command.text),
      args: command.args.slice(0, 20).map(clip),
    })),
  };
}
