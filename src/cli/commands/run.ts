// `hermes-temporal run "<task>"`.
import type { Command } from 'commander';
import { configFromFlags, type SessionFlags } from '../config-flags';
import { exitCodeFor, runSession } from '../run-session';

interface RunFlags extends SessionFlags {
  sessionId?: string;
  unattended?: boolean;
  json?: boolean;
  detach?: boolean;
  worker: boolean;
}

export function registerRunCommand(program: Command): void {
  program
    .command('run')
    .description('Run an agent session for a task and show what it does')
    .argument('<task>', 'what the agent should do')
    .option('--model <name>', 'model name (HERMES_MODEL)')
    .option('--base-url <url>', 'OpenAI-compatible endpoint (OPENAI_BASE_URL)')
    .option('--api-key <key>', 'API key for the endpoint (OPENAI_API_KEY)')
    .option('--toolsets <names>', 'comma-separated toolsets to enable (default hermes-cli)')
    .option('--cwd <dir>', 'working directory for the session (default: here)')
    .option('--session-id <id>', 'session id (default: random)')
    .option('--max-turns <n>', 'stop after this many model turns')
    .option('--json', 'print newline-delimited JSON events')
    .option('--detach', 'return once the session has started (needs TEMPORAL_ADDRESS or a running hermes-temporal dev)')
    .option('--no-worker', 'do not run a worker in this process (needs TEMPORAL_ADDRESS or a running hermes-temporal dev)')
    .option('--backend <name>', 'terminal backend: local, docker, ssh, singularity, modal, daytona, vercel_sandbox')
    .option('--approval-mode <mode>', 'manual | smart | off (approvals.mode)')
    .option('--unattended', 'nobody will answer approvals: dangerous commands follow approvals.unattended_policy (deny by default)')
    .action(async (task: string, flags: RunFlags) => {
      const config = configFromFlags(flags);
      const outcome = await runSession({
        task,
        config,
        sessionId: flags.sessionId,
        json: flags.json,
        detach: flags.detach,
        worker: flags.worker,
        ...(flags.unattended ? { surface: 'unattended' as const } : {}),
      });
      process.exitCode = outcome.stopExitCode ?? exitCodeFor(outcome.final);
    });
}
