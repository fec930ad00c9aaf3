// The terminal tool: run a shell command in the session's environment, in the foreground.
import { z } from 'zod';
import { approveCommand } from '../approval-signals/gate';
import { register } from '../registry/registry';
import { toolError, toolResult } from '../registry/results';
import type { FunctionSchema } from '../registry/tool-entry';
import { isReadOnlyCommand } from './read-only-command';
import { exitCodeMeaning, stripAnsi } from './terminal-output';

const WORKDIR_PATTERN = /^[A-Za-z0-9/\\:_\-.~ +@=,]+$/;
const HEARTBEAT_TAIL_CHARS = 2000;

/** Lines that steer the model to the dedicated file tools, shown only when those tools exist. */
const FILE_TOOL_HINTS: [tool: string, hint: string][] = [
  ['read_file', 'Do NOT use cat/head/tail to read files — use read_file instead.'],
  ['search_files', 'Do NOT use grep/rg/find to search — use search_files instead.'],
  ['search_files', "Do NOT use ls to list directories — use search_files(target='files') instead."],
  ['patch', 'Do NOT use sed/awk to edit files — use patch instead.'],
  ['write_file', 'Do NOT use echo/cat heredoc to create files — use write_file instead.'],
];

function describeTerminal(availableTools: ReadonlySet<string> | undefined): string {
  const hints = FILE_TOOL_HINTS.filter(([tool]) => !availableTools || availableTools.has(tool)).map(([, hint]) => hint);
  return [
    'Execute shell commands on a Linux environment. The current working directory persists between calls (a `cd` carries over).',
    '',
    ...(hints.length ? [...hints, ''] : []),
    'Reserve terminal for: builds, installs, git, processes, scripts, network, package managers, and anything that needs a shell.',
    '',
    'Commands return as soon as they finish, even if the timeout is high. Set timeout=300 for long builds or scripts.',
    'Working directory: use `workdir` for a per-command directory.',
    'Do NOT use vim/nano/interactive tools — they hang without a terminal. Pipe git output to cat if it might page.',
  ].join('\n');
}

const terminalArguments = z.object({
  command: z.string().describe('The command to execute'),
  timeout: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe('Max seconds to wait (default: 180, foreground max: 600). Returns as soon as the command finishes.'),
  workdir: z
    .string()
    .optional()
    .describe('Working directory for this command (absolute path). Defaults to the session working directory.'),
});

register({
  name: 'terminal',
  toolset: 'terminal',
  emoji: '💻',
  schema: terminalArguments,
  description: describeTerminal(undefined),
  maxResultChars: 100_000,
  patchSchema: (schema: FunctionSchema, available) => ({ ...schema, description: describeTerminal(available) }),
  // A command that only reads may run beside other reads (never beside a write, hence path '/');
  // anything else runs alone, in the model's order, as the model most likely expects.
  concurrency: ({ command }) =>
    typeof command === 'string' && isReadOnlyCommand(command) ? { mode: 'path', path: '/', access: 'read' } : { mode: 'exclusive' },
  handler: async ({ command, timeout, workdir }, context) => {
    const limits = context.settings.terminal;
    if (timeout !== undefined && timeout > limits.maxForegroundTimeoutSeconds) {
      return toolError(
        `Foreground timeout ${timeout}s exceeds the maximum of ${limits.maxForegroundTimeoutSeconds}s. ` +
          'Use background=true with notify_on_complete=true for long-running commands.',
      );
    }
    if (workdir !== undefined && !WORKDIR_PATTERN.test(workdir)) {
      const bad = [...workdir].find((char) => !WORKDIR_PATTERN.test(char));
      return JSON.stringify({
        output: '',
        exit_code: -1,
        error: `Blocked: workdir contains disallowed character '${bad}'. Use a simple filesystem path without shell metacharacters.`,
        status: 'blocked',
      });
    }
    const approval = await approveCommand(command, context);
    if (!approval.approved) {
      return JSON.stringify({ output: '', exit_code: -1, error: approval.message, status: 'blocked' });
    }

    const timeoutSeconds = timeout ?? limits.defaultTimeoutSeconds;
    let recent = '';
    const result = await context.environment.exec({
      command,
      cwd: workdir === undefined ? undefined : context.workspace.resolve(workdir),
      timeoutMs: timeoutSeconds * 1000,
      signal: context.signal,
      maxOutputChars: limits.maxOutputChars,
      id: `${context.sessionId}-${context.toolCallId}`,
      onOutput: (chunk) => {
        recent = (recent + chunk).slice(-HEARTBEAT_TAIL_CHARS);
        context.heartbeat({ outputTail: recent });
      },
    });
    if (result.interrupted) throw context.signal.reason ?? new Error('Command interrupted');

    const meaning = exitCodeMeaning(command, result.exitCode);
    return toolResult({
      output: stripAnsi(result.output).trim(),
      exit_code: result.exitCode,
      error: result.timedOut ? `Command timed out after ${timeoutSeconds} seconds` : null,
      ...(meaning ? { exit_code_meaning: meaning } : {}),
      ...(approval.note ? { approval: approval.note } : {}),
    });
  },
});
