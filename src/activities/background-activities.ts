// Watching a background process for terminal(notify_on_complete=true): an activity that ends with
// the process (looked at with the environment's other watched processes, see process-exit-watch.ts)
// and returns the message the session should hear. While the process runs the activity waits outside
// the worker's slots (handed-activities.ts); it heartbeats meanwhile, so a worker that dies is noticed
// and another one takes over the watch.
import { CompleteAsyncError, Context } from '@temporalio/activity';
import type { EnvironmentFactory } from '../environments/factory';
import { createSecretRedactor, safeTail, type SecretRedactor } from '../environments/secret-redaction';
import type { BackgroundProcessInfo, EnvironmentHandle, TerminalEnvironment } from '../environments/terminal-environment';
import { stripAnsi } from '../tools/terminal-output';
import { redactFailure } from './execute-tool';
import type { HandedActivities } from './handed-activities';
import { startHeartbeat } from './heartbeat';
import { ProcessExitWatch } from './process-exit-watch';
import { clip } from './tool-call-summary';

const POLL_INTERVAL_MS = 2000;
/** The original's COMPLETION_OUTPUT_CHARS. */
const NOTIFICATION_OUTPUT_CHARS = 2000;
/** The command as a notification repeats it: the model wrote it and can list it whole (process list). */
const NOTIFICATION_COMMAND_CHARS = 500;

export interface WatchBackgroundProcessInput {
  environment: EnvironmentHandle;
  processId: string;
  sessionId: string;
}

export interface WatchBackgroundProcessResult {
  processId: string;
  /** `lost`: the process disappeared (its files are gone, or its PTY's worker restarted). */
  status: 'exited' | 'lost';
  exitCode?: number;
  command: string;
  outputTail: string;
  /** The text to add to the session, in the original's `[IMPORTANT: ...]` form. */
  notification: string;
}

export interface BackgroundActivityDeps {
  environments: EnvironmentFactory;
  /** How often watched processes are looked at (tests shorten it). */
  pollIntervalMs?: number;
  /** Hides secrets in the notification (it reaches history and the model); formats only when not given. */
  redactor?: SecretRedactor;
  /** Where a watch of a running process waits without holding a worker slot; in its activity when absent. */
  handed?: HandedActivities;
}

export function createBackgroundActivities(deps: BackgroundActivityDeps) {
  const exits = new ProcessExitWatch((handle) => deps.environments.attach(handle), deps.pollIntervalMs ?? POLL_INTERVAL_MS);
  const redactor = deps.redactor ?? createSecretRedactor();

  /** How the process ended, or undefined while it runs; `seen` keeps its command for a process later lost. */
  const lookAt = async (environment: TerminalEnvironment, processId: string, seen: { command: string }): Promise<WatchBackgroundProcessResult | undefined> => {
    // A little more than shown, so a word cut in two at its start can be told apart (see safeTail).
    const state = await environment.background.poll(processId, 2 * NOTIFICATION_OUTPUT_CHARS);
    seen.command = state?.info.command ?? seen.command;
    if (state && state.info.status !== 'exited') return undefined;
    const outputTail = safeTail(stripAnsi(state?.outputTail ?? ''), NOTIFICATION_OUTPUT_CHARS);
    return watchResult(processId, redactor.redact(seen.command), state?.info, redactor.redact(outputTail));
  };

  /** Waits, with the environment's other watched processes, until the process ends (`signal` stops the wait). */
  const untilEnded = async (environment: TerminalEnvironment, input: WatchBackgroundProcessInput, seen: { command: string }, signal: AbortSignal, stillRunning = () => {}): Promise<WatchBackgroundProcessResult> => {
    for (;;) {
      await exits.ended(input.environment, input.processId, signal);
      const ended = await lookAt(environment, input.processId, seen);
      if (ended) return ended;
      stillRunning();
    }
  };

  return {
    async watchBackgroundProcess(input: WatchBackgroundProcessInput): Promise<WatchBackgroundProcessResult> {
      const context = Context.current();
      const details = { processId: input.processId, status: 'running' };
      const heartbeat = startHeartbeat(details, { immediate: true });
      const seen = { command: '' };
      let environment: TerminalEnvironment;
      try {
        environment = await deps.environments.attach(input.environment);
        const ended = await lookAt(environment, input.processId, seen);
        if (ended) return ended;
        // Rejects with a CancelledFailure when the activity is cancelled.
        if (!deps.handed?.accepting) return await untilEnded(environment, input, seen, context.cancellationSignal, () => heartbeat.update(details));
      } catch (error) {
        throw redactFailure(error, redactor);
      } finally {
        heartbeat.stop();
      }
      // The process runs: the wait goes on outside the activity, holding no worker slot.
      const watching = environment;
      deps.handed.take(context.info.taskToken, { what: 'background process watch', details }, (signal) =>
        untilEnded(watching, input, seen, signal).catch((error: unknown) => {
          throw redactFailure(error, redactor);
        }),
      );
      throw new CompleteAsyncError();
    },
  };
}

function watchResult(processId: string, command: string, info: BackgroundProcessInfo | undefined, outputTail: string): WatchBackgroundProcessResult {
  const exitCode = info?.exitCode;
  const status = exitCode === undefined ? 'lost' : 'exited';
  const shown = clip(command, NOTIFICATION_COMMAND_CHARS);
  return {
    processId,
    status,
    ...(exitCode === undefined ? {} : { exitCode }),
    command: shown,
    outputTail,
    notification: formatProcessNotification({ processId, command: shown, exitCode, outputTail }),
  };
}

/**
 * `[IMPORTANT: Background process {id} {status} (exit code {code}[, SIGTERM]).\nCommand: ...\nOutput:\n...]`
 * with the original's status words.
 */
export function formatProcessNotification(event: { processId: string; command: string; exitCode?: number; outputTail: string }): string {
  const { exitCode } = event;
  const status =
    exitCode === undefined
      ? 'marked lost because the process backend disappeared'
      : exitCode === -15
        ? 'terminated by process.kill'
        : exitCode === 0
          ? 'completed normally'
          : 'exited';
  const signal = exitCode === -15 || exitCode === 143 ? ', SIGTERM' : '';
  return (
    `[IMPORTANT: Background process ${event.processId} ${status} (exit code ${exitCode ?? '?'}${signal}).\n` +
    `Command: ${event.command || 'unknown'}\nOutput:\n${event.outputTail}]`
  );
}
