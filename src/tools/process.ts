// The process tool: look after the background processes that terminal(background=true) started —
// status, output, waiting, killing, and typing into their stdin.
import { z } from 'zod';
import type { BackgroundProcessInfo } from '../environments/terminal-environment';
import { truncateMiddle } from '../environments/bounded-output';
import { approveProcessInput } from '../approval-signals/gate';
import { register } from '../registry/registry';
import { isCancellation, toolError, toolResult } from '../registry/results';
import type { ToolContext } from '../registry/tool-entry';
import { terminalBackendAvailable } from './terminal-availability';
import { stripAnsi } from './terminal-output';

const ACTIONS = ['list', 'poll', 'log', 'wait', 'kill', 'write', 'submit', 'close'] as const;
type Action = (typeof ACTIONS)[number];
/** Actions that only look: they may run beside other calls and be repeated after a crash. */
const READ_ACTIONS: ReadonlySet<string> = new Set<Action>(['list', 'poll', 'log']);

const PREVIEW_CHARS = 1000;
const LIST_PREVIEW_CHARS = 200;
const EXIT_OUTPUT_CHARS = 2000;
const DEFAULT_LOG_LINES = 200;

const processArguments = z.object({
  // A plain string with the enum in the JSON schema only: an unknown action gets the original's
  // "Unknown process action" answer instead of a validation error.
  action: z
    .string()
    .meta({ enum: [...ACTIONS] })
    .describe('Action to perform on background processes'),
  session_id: z.coerce
    .string()
    .optional()
    .describe("Process session ID (from terminal background output). Required for all actions except 'list'."),
  data: z.string().optional().describe("Text to send to process stdin (for 'write' and 'submit' actions)"),
  timeout: z.number().int().min(1).optional().describe("Max seconds to block for 'wait' action. Returns partial output on timeout."),
  offset: z.number().int().optional().describe("Line offset for 'log' action (default: last 200 lines)"),
  limit: z.number().int().min(1).optional().describe("Max lines to return for 'log' action"),
});

type ProcessArguments = z.infer<typeof processArguments>;

register({
  name: 'process',
  toolset: 'terminal',
  checkFn: terminalBackendAvailable,
  emoji: '⚙️',
  schema: processArguments,
  description:
    "Manage background processes started with terminal(background=true). Actions: 'list' (show all), 'poll' (check status + new output), " +
    "'log' (full output with pagination), 'wait' (block until done or timeout), 'kill' (terminate), 'write' (send raw stdin data without newline), " +
    "'submit' (send data + Enter, for answering prompts), 'close' (close stdin/send EOF). " +
    'write/submit/close work for every background process, with or without pty.',
  concurrency: ({ action }) => (READ_ACTIONS.has(String(action)) ? { mode: 'parallel' } : { mode: 'exclusive' }),
  retrySafeFor: ({ action }) => READ_ACTIONS.has(String(action)),
  // Typing into a shell or an interpreter runs code: the gate judges the text like a command.
  assess: ({ action, session_id: processId, data }) =>
    (action === 'write' || action === 'submit') && (typeof processId === 'string' || typeof processId === 'number')
      ? { processInput: { processId: String(processId), data: typeof data === 'string' ? data : '', action } }
      : {},
  handler: async (args, context) => {
    const action = args.action as Action;
    if (!(ACTIONS as readonly string[]).includes(action)) {
      return toolError(`Unknown process action: ${args.action}. Use: ${ACTIONS.join(', ')}`);
    }
    if (action === 'list') return list(context);
    const id = args.session_id;
    if (!id) return toolError(`session_id is required for ${action}`);
    switch (action) {
      case 'poll':
        return poll(id, context);
      case 'log':
        return log(id, args, context);
      case 'wait':
        return wait(id, args, context);
      case 'kill':
        return kill(id, context);
      case 'write':
        return sendInput(id, args.data ?? '', context);
      case 'submit':
        return sendInput(id, `${args.data ?? ''}\n`, context);
      case 'close':
        return closeInput(id, context);
    }
  },
});

function notFound(id: string): string {
  return toolResult({ status: 'not_found', error: `No process with ID ${id}` });
}

/** An exited process with no exit code was lost: its PTY lived in a worker that restarted. */
function isLost(info: BackgroundProcessInfo): boolean {
  return info.status === 'exited' && info.exitCode === undefined;
}

const LOST_NOTE =
  'This PTY process lived in a worker that has since restarted, and PTY processes do not survive that: ' +
  'it can no longer be reached. Its output up to then is still readable with log.';

function uptimeSeconds(info: BackgroundProcessInfo): number {
  return Math.max(0, Math.floor((Date.now() - Date.parse(info.startedAt)) / 1000));
}

/** Exit fields as the original reports them. */
function exitFields(info: BackgroundProcessInfo): Record<string, unknown> {
  if (info.status !== 'exited') return {};
  if (isLost(info)) return { exit_code: null, completion_reason: 'lost', detached: true, note: LOST_NOTE };
  const killed = info.exitCode === -15;
  return {
    exit_code: info.exitCode,
    completion_reason: killed ? 'killed' : 'exited',
    termination_source: killed ? 'process.kill' : '',
  };
}

function cleanTail(text: string, chars: number): string {
  return stripAnsi(text).slice(-chars);
}

async function list(context: ToolContext): Promise<string> {
  const background = context.environment.background;
  const processes = await background.list();
  const entries = await Promise.all(
    processes.map(async (info) => {
      const state = await background.poll(info.id, LIST_PREVIEW_CHARS);
      const current = state?.info ?? info;
      return {
        session_id: current.id,
        command: current.command.slice(0, 200),
        cwd: current.cwd,
        pid: current.pid ?? null,
        started_at: current.startedAt,
        uptime_seconds: uptimeSeconds(current),
        status: current.status,
        output_preview: cleanTail(state?.outputTail ?? '', LIST_PREVIEW_CHARS),
        ...(current.pty ? { pty: true } : {}),
        ...(current.notifyOnComplete ? { notify_on_complete: true } : {}),
        ...exitFields(current),
      };
    }),
  );
  return toolResult({ processes: entries });
}

async function poll(id: string, context: ToolContext): Promise<string> {
  const state = await context.environment.background.poll(id, PREVIEW_CHARS);
  if (!state) return notFound(id);
  const { info, outputTail } = state;
  return toolResult({
    session_id: info.id,
    command: info.command,
    status: info.status,
    pid: info.pid ?? null,
    uptime_seconds: uptimeSeconds(info),
    output_preview: cleanTail(outputTail, PREVIEW_CHARS),
    ...exitFields(info),
  });
}

async function log(id: string, { offset, limit }: ProcessArguments, context: ToolContext): Promise<string> {
  const lines = limit ?? DEFAULT_LOG_LINES;
  // The model counts lines from 0 (the original's `lines[offset:offset+limit]`); the environment
  // takes a 1-based first line, and 0 for "the last `limit` lines".
  const first = offset && offset > 0 ? offset + 1 : 0;
  const result = await context.environment.background.log(id, first, lines);
  if (!result) return notFound(id);
  // Lines joined by newlines, as the original shows them (no newline after the last).
  const output = stripAnsi(result.output).replace(/\n$/, '');
  const shown = output === '' ? 0 : output.split('\n').length;
  return toolResult({
    session_id: result.info.id,
    command: result.info.command,
    status: result.info.status,
    output: truncateMiddle(output, context.settings.terminal.maxOutputChars),
    total_lines: result.totalLines,
    showing: `${shown} lines`,
    ...(isLost(result.info) ? { note: LOST_NOTE } : {}),
  });
}

async function wait(id: string, { timeout }: ProcessArguments, context: ToolContext): Promise<string> {
  const limit = context.settings.terminal.defaultTimeoutSeconds;
  const seconds = timeout === undefined ? limit : Math.min(timeout, limit);
  const clampNote = timeout !== undefined && timeout > limit ? `Requested wait of ${timeout}s was clamped to configured limit of ${limit}s` : undefined;
  const state = await context.environment.background.wait(id, seconds * 1000, context.signal);
  if (context.signal.aborted) throw context.signal.reason ?? new Error('wait interrupted');
  if (!state) return notFound(id);
  const { info, outputTail } = state;
  if (info.status === 'exited') {
    return toolResult({
      status: 'exited',
      session_id: info.id,
      command: info.command,
      ...exitFields(info),
      output: cleanTail(outputTail, EXIT_OUTPUT_CHARS),
      ...(clampNote ? { timeout_note: clampNote } : {}),
    });
  }
  return toolResult({
    status: 'timeout',
    session_id: info.id,
    command: info.command,
    output: cleanTail(outputTail, PREVIEW_CHARS),
    timeout_note: clampNote ?? `Waited ${seconds}s, process still running`,
  });
}

async function kill(id: string, context: ToolContext): Promise<string> {
  const background = context.environment.background;
  const before = await background.poll(id, EXIT_OUTPUT_CHARS);
  if (!before) return notFound(id);
  if (before.info.status === 'exited') {
    return toolResult({
      status: 'already_exited',
      session_id: id,
      ...exitFields(before.info),
      output: cleanTail(before.outputTail, EXIT_OUTPUT_CHARS),
    });
  }
  if (!(await background.kill(id))) return notFound(id);
  const final = await background.poll(id, EXIT_OUTPUT_CHARS);
  return toolResult({
    status: 'killed',
    session_id: id,
    completion_reason: 'killed',
    termination_source: 'process.kill',
    output: cleanTail(final?.outputTail ?? before.outputTail, EXIT_OUTPUT_CHARS),
  });
}

/** The running process whose stdin is wanted, or the result that says why there is none. */
async function stdinTarget(id: string, context: ToolContext): Promise<{ info: BackgroundProcessInfo } | { result: string }> {
  const state = await context.environment.background.poll(id, 0);
  if (!state) return { result: notFound(id) };
  if (state.info.status === 'exited') {
    const note = isLost(state.info) ? { note: LOST_NOTE } : {};
    return { result: toolResult({ status: 'already_exited', error: 'Process has already finished', ...note }) };
  }
  return { info: state.info };
}

async function sendInput(id: string, data: string, context: ToolContext): Promise<string> {
  const target = await stdinTarget(id, context);
  if ('result' in target) return target.result;
  const approval = await approveProcessInput(target.info.command, data, context);
  if (!approval.approved) return toolResult({ status: 'blocked', error: approval.message });
  return withStdin(context, () => context.environment.background.write(id, data), { status: 'ok', bytes_written: data.length });
}

async function closeInput(id: string, context: ToolContext): Promise<string> {
  const target = await stdinTarget(id, context);
  if ('result' in target) return target.result;
  // A terminal gets ^D (it stays open); a pipe is closed for good.
  const message = target.info.pty ? 'EOF sent' : 'stdin closed';
  return withStdin(context, () => context.environment.background.closeStdin(id), { status: 'ok', message });
}

async function withStdin(context: ToolContext, operation: () => Promise<void>, ok: Record<string, unknown>): Promise<string> {
  try {
    await operation();
    return toolResult(ok);
  } catch (error) {
    if (isCancellation(error, context.signal)) throw error;
    return toolResult({ status: 'error', error: error instanceof Error ? error.message : String(error) });
  }
}
