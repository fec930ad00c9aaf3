// The terminal tool: run a shell command in the session's environment, in the foreground (the
// result comes back when it ends) or in the background (a `proc_…` id for the process tool).
import { z } from 'zod';
import { approveCommand } from '../approval-signals/gate';
import { register } from '../registry/registry';
import { toolError, toolResult } from '../registry/results';
import type { FunctionSchema, ToolContext } from '../registry/tool-entry';
import { isReadOnlyCommand } from '../approval-signals/read-only-command';
import { exitCodeMeaning, stripAnsi } from './terminal-output';
import { terminalBackendAvailable } from './terminal-availability';
import {
  NOTIFY_PARAMETER,
  PTY_PARAMETER,
  SILENT_BACKGROUND_HINT,
  TIMEOUT_PARAMETER,
  describeBackgroundParameter,
  describeTerminal,
} from './terminal-description';
import { disallowedWorkdirCharacter, foregroundBackgroundGuidance } from './terminal-guards';
import { safeTail } from '../environments/secret-redaction';
import { commandIdFor } from '../environments/terminal-environment';
import { MAX_ANALYSED_TEXT_CHARS } from '../approval-signals/detector/analysed-text-limit';

const HEARTBEAT_TAIL_CHARS = 2000;

const terminalArguments = z.object({
  command: z
    .string()
    .max(MAX_ANALYSED_TEXT_CHARS, `a command runs at most ${MAX_ANALYSED_TEXT_CHARS} characters: write a longer script to a file with write_file, then run the file`)
    .describe('The command to execute'),
  background: z.boolean().default(false).describe(describeBackgroundParameter(undefined)),
  timeout: z.number().int().min(1).optional().describe(TIMEOUT_PARAMETER),
  workdir: z
    .string()
    .optional()
    .describe('Working directory for this command (absolute path). Defaults to the session working directory.'),
  pty: z.boolean().default(false).describe(PTY_PARAMETER),
  notify_on_complete: z.boolean().default(false).describe(NOTIFY_PARAMETER),
});

type TerminalArguments = z.infer<typeof terminalArguments>;

function isTrue(value: unknown): boolean {
  return value === true || (typeof value === 'string' && value.toLowerCase() === 'true');
}

/** `{output: "", exit_code: -1, error, status}`: the original's shape for a command that did not run. */
function notRun(error: string, status: 'error' | 'blocked'): string {
  return JSON.stringify({ output: '', exit_code: -1, error, status });
}

register({
  name: 'terminal',
  toolset: 'terminal',
  checkFn: terminalBackendAvailable,
  emoji: '💻',
  schema: terminalArguments,
  description: describeTerminal(undefined),
  maxResultChars: 100_000,
  patchSchema: (schema: FunctionSchema, available) => patchTerminalSchema(schema, available),
  // A command that only reads (by the detector's parse; or any, with parallel_terminal: always)
  // may run beside other reads (never beside a write, hence path '/'); anything else, and every
  // background start, runs alone, in the model's order. (The arguments here are the model's,
  // before coercion: `background` may still be the string "true".)
  concurrency: ({ command, background }, settings) => {
    const policy = settings?.terminal.parallel ?? 'read_only';
    const beside = policy === 'always' || (policy === 'read_only' && typeof command === 'string' && isReadOnlyCommand(command));
    return !isTrue(background) && typeof command === 'string' && beside ? { mode: 'path', path: '/', access: 'read' } : { mode: 'exclusive' };
  },
  // A read-only command (the same parse as above) needs no checkpoint of the workspace before it.
  changesWorkspace: ({ command, background }) => isTrue(background) || typeof command !== 'string' || !isReadOnlyCommand(command),
  // The gate judges the command (and the workspace files it runs) before the handler is called.
  assess: ({ command, workdir }) =>
    typeof command === 'string' ? { commands: [{ text: command, via: 'terminal', ...(typeof workdir === 'string' ? { workdir } : {}) }] } : {},
  handler: async (args, context) => {
    const { command, background, timeout, workdir } = args;
    const limits = context.settings.terminal;
    if (!background && timeout !== undefined && timeout > limits.maxForegroundTimeoutSeconds) {
      return toolError(
        `Foreground timeout ${timeout}s exceeds the maximum of ${limits.maxForegroundTimeoutSeconds}s. ` +
          'Use background=true with notify_on_complete=true for long-running commands.',
      );
    }
    if (!background) {
      const guidance = foregroundBackgroundGuidance(command);
      if (guidance) return notRun(guidance, 'error');
    }
    const bad = workdir === undefined ? undefined : disallowedWorkdirCharacter(workdir);
    if (bad !== undefined) {
      return notRun(`Blocked: workdir contains disallowed character '${bad}'. Use a simple filesystem path without shell metacharacters.`, 'blocked');
    }
    const approval = await approveCommand(command, context);
    if (!approval.approved) return notRun(approval.message, 'blocked');

    const approvalNote: Record<string, string> = approval.note ? { approval: approval.note } : {};
    if (background) return startInBackground(args, context, approvalNote);
    return runInForeground(args, context, approvalNote);
  },
});

async function runInForeground(
  { command, timeout, workdir, pty }: TerminalArguments,
  context: ToolContext,
  approvalNote: Record<string, string>,
): Promise<string> {
  const limits = context.settings.terminal;
  const timeoutSeconds = timeout ?? limits.defaultTimeoutSeconds;
  let recent = '';
  const result = await context.environment.exec({
    command,
    cwd: workdir === undefined ? undefined : context.workspace.resolve(workdir),
    timeoutMs: timeoutSeconds * 1000,
    signal: context.signal,
    maxOutputChars: limits.maxOutputChars,
    id: commandIdFor(context.sessionId, context.toolCallId),
    ...(pty ? { pty: true } : {}),
    onOutput: (chunk) => {
      recent = (recent + chunk).slice(-2 * HEARTBEAT_TAIL_CHARS);
      // A tail cut mid-word could begin inside a secret that redaction no longer recognises.
      context.heartbeat({ outputTail: safeTail(recent, HEARTBEAT_TAIL_CHARS) });
    },
  });
  // Cancelled from outside: propagate. Interrupted otherwise (a dropped connection): report it.
  if (result.interrupted && context.signal.aborted) throw context.signal.reason ?? new Error('Command interrupted');

  const meaning = exitCodeMeaning(command, result.exitCode);
  const output = stripAnsi(result.output).trim();
  return toolResult({
    output: context.transformTerminalOutput ? await context.transformTerminalOutput({ command, output, returncode: result.exitCode }) : output,
    exit_code: result.exitCode,
    error: result.timedOut
      ? `Command timed out after ${timeoutSeconds} seconds`
      : result.interrupted
        ? 'Command interrupted before it finished; it may have partially run'
        : null,
    ...(meaning ? { exit_code_meaning: meaning } : {}),
    ...approvalNote,
  });
}

async function startInBackground(
  { command, workdir, pty, notify_on_complete: notifyOnComplete }: TerminalArguments,
  context: ToolContext,
  approvalNote: Record<string, string>,
): Promise<string> {
  const cwd = workdir === undefined ? context.environment.handle.cwd : context.workspace.resolve(workdir);
  let started;
  try {
    started = await context.environment.background.start({
      command,
      cwd,
      pty,
      notifyOnComplete,
      // As the original: Python output reaches the log as it is printed.
      env: { PYTHONUNBUFFERED: '1' },
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return toolResult({ output: '', exit_code: -1, error: `Failed to start background process: ${message}` });
  }
  return toolResult({
    output: 'Background process started',
    session_id: started.id,
    pid: started.pid ?? null,
    exit_code: 0,
    error: null,
    ...approvalNote,
    ...(notifyOnComplete ? { notify_on_complete: true } : { hint: SILENT_BACKGROUND_HINT }),
  });
}

/** The description and the `background` parameter mention the process tool only where it exists. */
function patchTerminalSchema(schema: FunctionSchema, available: ReadonlySet<string>): FunctionSchema {
  const parameters = schema.parameters as { properties?: Record<string, Record<string, unknown>> };
  const properties = parameters.properties ?? {};
  return {
    ...schema,
    description: describeTerminal(available),
    parameters: {
      ...schema.parameters,
      properties: { ...properties, background: { ...properties.background, description: describeBackgroundParameter(available) } },
    },
  };
}
