// Every command of `hermes-temporal`, with what the top-level help lists for it, and the module
// that defines it, loaded only when that command runs: loading them all up front cost a second
// (the Temporal SDK, the shell parser, the worker) before even `--help` could answer.
// test/unit/cli/lazy-commands.test.ts keeps these lines equal to what the modules define.
import type { Command } from 'commander';

type Register = (program: Command) => void;

export interface CommandModule {
  /** Each command the module registers: its help term (name, options marker, arguments) and description. */
  commands: { term: string; description: string }[];
  load: () => Promise<Register>;
}

export const COMMAND_MODULES: CommandModule[] = [
  {
    commands: [{ term: 'run [options] <task>', description: 'Run an agent session for a task and show what it does' }],
    load: async () => (await import('./commands/run')).registerRunCommand,
  },
  {
    commands: [{ term: 'demo [options]', description: 'Run a demo session on an embedded Temporal dev server (scripted model unless OPENAI_API_KEY is set)' }],
    load: async () => (await import('./commands/demo')).registerDemoCommand,
  },
  {
    commands: [{ term: 'dev [options]', description: 'Start a persistent Temporal dev server with the Web UI and a worker (Ctrl+C stops both)' }],
    load: async () => (await import('./commands/dev')).registerDevCommand,
  },
  {
    commands: [{ term: 'worker', description: 'Run a worker that serves sessions from TEMPORAL_ADDRESS (or a running hermes-temporal dev) until SIGINT/SIGTERM' }],
    load: async () => (await import('./commands/worker')).registerWorkerCommand,
  },
  {
    commands: [
      { term: 'sessions [options]', description: 'List recent sessions' },
      { term: 'show [options] <sessionId>', description: "Show a session's record and transcript" },
    ],
    load: async () => (await import('./commands/sessions')).registerSessionCommands,
  },
  {
    commands: [
      { term: 'checkpoints [options] <sessionId>', description: "List the checkpoints of a session's workspace (taken before turns that changed it)" },
      { term: 'rollback [options] <sessionId> [checkpoint]', description: "Put a session's workspace (or one path) back as a checkpoint holds it; the current state is checkpointed first" },
    ],
    load: async () => (await import('./commands/checkpoints')).registerCheckpointCommands,
  },
  {
    commands: [
      { term: 'pending [options] [sessionId]', description: 'List approvals waiting for a decision (one session, or every running session)' },
      { term: 'approve [options] <sessionId> [approvalId]', description: 'Approve a pending command (without an approval id: the only one pending)' },
      { term: 'deny [options] <sessionId> [approvalId]', description: 'Deny a pending command (the oldest one when no approval id is given)' },
      { term: 'serve-approvals [options]', description: 'Serve an HTTP endpoint that turns signed decisions into approvals (needs approvals.webhook.secret)' },
    ],
    load: async () => (await import('./commands/approvals')).registerApprovalCommands,
  },
  {
    commands: [{ term: 'approver', description: 'The key that signs approval decisions and session starts (approve, deny, serve-approvals, run)' }],
    load: async () => (await import('./commands/approver')).registerApproverCommands,
  },
  {
    commands: [{ term: 'trust [path]', description: "Trust a project's hermes-temporal.yaml as it is now (used only once trusted, and again after each change)" }],
    load: async () => (await import('./commands/trust')).registerTrustCommand,
  },
  {
    commands: [{ term: 'check-command [options] [command]', description: 'Classify a shell command the way the approval gate would (nothing is run)' }],
    load: async () => (await import('./commands/check-command')).registerCheckCommand,
  },
  {
    commands: [{ term: 'tools [options]', description: 'List the tools and whether each is available here' }],
    load: async () => (await import('./commands/tools')).registerToolsCommand,
  },
  {
    commands: [{ term: 'plugins [options]', description: 'List the plugins found, where from, and whether each loaded (and why not)' }],
    load: async () => (await import('./commands/plugins')).registerPluginsCommand,
  },
  {
    commands: [{ term: 'scripted-model [options]', description: 'Serve a scripted OpenAI-compatible model on loopback (for tests and demos)' }],
    load: async () => (await import('./commands/scripted-model')).registerScriptedModelCommand,
  },
  {
    commands: [{ term: 'temporal-cli [options]', description: 'Print the path of the Temporal CLI used for dev servers, installing it if needed' }],
    load: async () => (await import('./commands/temporal-cli')).registerTemporalCliCommand,
  },
];

export function commandName(term: string): string {
  return term.split(' ')[0]!;
}

/** The module defining `name`, if any. */
export function moduleOf(name: string): CommandModule | undefined {
  return COMMAND_MODULES.find((module) => module.commands.some((command) => commandName(command.term) === name));
}
