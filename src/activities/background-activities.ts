// Watching a background process for terminal(notify_on_complete=true): a long activity that waits
// for the process to end (looked at with the environment's other watched processes, see
// process-exit-watch.ts) and returns the message the session should hear. It heartbeats while
// it waits, so a worker that dies is noticed and another one takes over the watch.
import { Context } from '@temporalio/activity';
import type { EnvironmentFactory } from '../environments/factory';
import { createSecretRedactor, safeTail, type SecretRedactor } from '../environments/secret-redaction';
import type { BackgroundProcessInfo, EnvironmentHandle } from '../environments/terminal-environment';
import { stripAnsi } from '../tools/terminal-output';
import { redactFailure } from './execute-tool';
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
}

export function createBackgroundActivities(deps: BackgroundActivityDeps) {
  const exits = new ProcessExitWatch((handle) => deps.environments.attach(handle), deps.pollIntervalMs ?? POLL_INTERVAL_MS);
  const redactor = deps.redactor ?? createSecretRedactor();
  return {
    async watchBackgroundProcess(input: WatchBackgroundProcessInput): Promise<WatchBackgroundProcessResult> {
      const context = Context.current();
      const heartbeat = startHeartbeat({ processId: input.processId, status: 'running' }, { immediate: true });
      try {
        const environment = await deps.environments.attach(input.environment);
        let command = '';
        for (;;) {
          // A little more than shown, so a word cut in two at its start can be told apart (see safeTail).
          const state = await environment.background.poll(input.processId, 2 * NOTIFICATION_OUTPUT_CHARS);
          command = state?.info.command ?? command;
          if (!state || state.info.status === 'exited') {
            const outputTail = safeTail(stripAnsi(state?.outputTail ?? ''), NOTIFICATION_OUTPUT_CHARS);
            return watchResult(input.processId, redactor.redact(command), state?.info, redactor.redact(outputTail));
          }
          heartbeat.update({ status: 'running' });
          // Rejects with a CancelledFailure when the activity is cancelled.
          await exits.ended(input.environment, input.processId, context.cancellationSignal);
        }
      } catch (error) {
        throw redactFailure(error, redactor);
      } finally {
        heartbeat.stop();
      }
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
