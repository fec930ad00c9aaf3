// `hermes-temporal run`: start a session (on TEMPORAL_ADDRESS or an embedded dev server), serve it
// with an in-process worker unless told otherwise, and show progress until it ends.
import type { LoadedConfig } from '../config/load';
import { createSecretRedactor } from '../environments/secret-redaction';
import { createConfiguredLogger } from '../logging';
import { registry } from '../registry/registry';
import { killRunningCommands } from '../environments/running-commands';
import { createSessionStore } from '../store/create-session-store';
import type { SessionStore } from '../store/session-store';
import { connectTemporal, findRunningDevServer, workflowUiUrl, type TemporalConnection } from '../temporal/connection';
import { installTemporalRuntime } from '../temporal/runtime';
import { startSession, type SessionHandle } from '../temporal/sessions';
import { createHermesWorker, loadBuiltinTools, releaseWorkerEnvironments } from '../temporal/worker';
import type { ApprovalSurface, PendingApproval } from '../approval-signals/approval-types';
import { loadApproverKey, signDecision } from '../approval-signals/approver-key';
import type { SessionStatus } from '../workflows/session-types';
import { ApprovalPrompter } from './approval-prompt';
import { subagentApprovalNotes } from './subagent-approval-notes';
import { followSession, type FinalEvent } from './follow-session';
import { createEventPrinter, type EventPrinter } from './output';
import { abandonSession, armAbandonWatch, settleOrphanedRuns, type AbandonWatch } from './abandoned-run';
import { watchForStop, type StopCause } from './run-stop';
import { refuseMissingWorkspace, refuseUnknownToolsets } from './session-preflight';

export interface RunOptions {
  task: string;
  config: LoadedConfig;
  sessionId?: string;
  json?: boolean;
  detach?: boolean;
  /** Serve the session with a worker in this process (default true). */
  worker?: boolean;
  /** Who answers approvals: `interactive` prompts here; default `async` (or `interactive` in a terminal). */
  surface?: ApprovalSurface;
  /** Called once per pending approval when nobody is prompted here (the demo answers itself). */
  onApprovalPending?: (approval: PendingApproval, handle: SessionHandle, printer: EventPrinter) => void;
  /** Called once the session runs, e.g. to print where the Web UI is. */
  onStarted?: (connection: TemporalConnection, printer: EventPrinter) => void;
  /** Keep the embedded server up after the session ends, until this resolves or `stop` aborts (a signal). */
  keepServerUntil?: (connection: TemporalConnection, printer: EventPrinter, stop: AbortSignal) => Promise<void>;
}

export interface RunOutcome {
  sessionId: string;
  workflowId: string;
  final?: FinalEvent;
  /** Set when a signal or the parent's death stopped the run: the exit code it asks for. */
  stopExitCode?: number;
}

export async function runSession(options: RunOptions): Promise<RunOutcome> {
  const serveLocally = options.worker ?? true;
  const config = withSharedServer(options.config, !serveLocally || Boolean(options.detach));
  if (!config.temporal.address && !serveLocally) {
    throw new Error('--no-worker needs a server that other workers poll: set TEMPORAL_ADDRESS, or start `hermes-temporal dev` in another terminal');
  }
  if (!config.temporal.address && options.detach) {
    throw new Error('--detach needs a server that outlives this command: set TEMPORAL_ADDRESS, or start `hermes-temporal dev` in another terminal');
  }
  // Said before a server starts, not after minutes of retries: the worker here has no model.
  if (serveLocally && !config.model.api_key && !config.model.base_url) {
    throw new Error(
      'No model configured: set OPENAI_API_KEY (for api.openai.com) or OPENAI_BASE_URL (any OpenAI-compatible endpoint, or --base-url). ' +
        '`hermes-temporal demo` needs neither.',
    );
  }
  if (serveLocally) refuseMissingWorkspace(config);
  const logger = createConfiguredLogger(config);
  // This command decides what a signal means (run-stop.ts): the worker must outlive the first one.
  // The SDK warns of every failed activity attempt; this command shows failures in its own words.
  installTemporalRuntime(logger, { handleSignals: false, level: 'ERROR' });
  loadBuiltinTools(logger);
  // Plugins may define toolsets: with some enabled, the names are checked once the worker loaded them.
  const pluginsEnabled = config.plugins.enabled.length > 0;
  if (!pluginsEnabled) refuseUnknownToolsets(config);
  // What this command prints (events, approval prompts) hides the same secrets the worker's output does.
  const redactor = createSecretRedactor({ env: process.env, config });
  const printer = createEventPrinter({ json: Boolean(options.json), emojiFor: (tool) => registry.getEmoji(tool), redactor });

  const connection = await connectTemporal(config, { log: (message) => printer.note(message) });
  const store = createSessionStore(config);
  await settleOrphanedRuns(config.home, store);
  const worker = serveLocally
    ? await createHermesWorker({ connection: connection.nativeConnection, config, store, logger })
    : undefined;
  const workerDone = worker?.run();
  try {
    if (worker && pluginsEnabled) refuseUnknownToolsets(config);
    const surface = options.surface ?? (!options.json && !options.detach && process.stdin.isTTY && process.stdout.isTTY ? 'interactive' : 'async');
    const handle = await startSession(connection.client, { task: options.task, config, sessionId: options.sessionId, surface });
    const sessionId = handle.workflowId.replace(/^hermes-session-/, '');
    printer.print({
      type: 'session_started',
      sessionId,
      workflowId: handle.workflowId,
      uiUrl: workflowUiUrl(connection.uiUrl, connection.namespace, handle.workflowId),
    });
    options.onStarted?.(connection, printer);
    if (options.detach) return { sessionId, workflowId: handle.workflowId };

    // Covers the ends this process cannot handle itself (SIGKILL, a crash); see abandoned-run.ts.
    const abandonWatch = connection.embedded ? armAbandonWatch({ sessionId, backend: config.terminal.backend, home: config.home, store: config.store }) : undefined;
    const stopWatch = watchForStop({
      cancel: () => handle.cancel().then(() => undefined),
      note: (message) => printer.note(message),
      cleanUp: (cause) =>
        abandonRun({ sessionId, cause, connection, store, backend: config.terminal.backend, abandonWatch, note: (message) => printer.note(message) }),
    });
    // The person at this terminal answers with this machine's approver key (the session lists it).
    const approver = surface === 'interactive' ? loadApproverKey(config.home, { create: true }) : undefined;
    const prompter = approver
      ? new ApprovalPrompter(
          handle,
          (pending, choice) => signDecision(approver, { workflowId: handle.workflowId, pending, choice, via: 'prompt' }),
          undefined,
          redactor.redactForApproval,
        )
      : undefined;
    const announced = new Set<string>();
    const subagentNotes = subagentApprovalNotes(sessionId, redactor.redactForApproval);
    const onStatus = (status: SessionStatus) => {
      for (const note of subagentNotes(status.descendantApprovals)) printer.note(note);
      if (prompter) return prompter.offer(status.pendingApprovals);
      for (const approval of status.pendingApprovals) {
        if (announced.has(approval.approvalId)) continue;
        announced.add(approval.approvalId);
        printer.print({
          type: 'approval_pending',
          sessionId,
          approvalId: approval.approvalId,
          command: approval.command,
          description: approval.description,
          choices: approval.smartDenied ? ['once', 'deny'] : approval.allowAlways ? ['once', 'session', 'always', 'deny'] : ['once', 'session', 'deny'],
          expiresAt: approval.expiresAt,
        });
        options.onApprovalPending?.(approval, handle, printer);
      }
    };
    try {
      const final = await followSession(handle, (event) => printer.print(event), { onStatus });
      abandonWatch?.disarm();
      if (connection.embedded && options.keepServerUntil && stopWatch.exitCode === undefined) {
        // The session is over: Ctrl+C or SIGTERM now only ends the wait; there is nothing to cancel.
        stopWatch.dispose();
        await keepingServer((stop) => options.keepServerUntil!(connection, printer, stop));
      }
      return { sessionId, workflowId: handle.workflowId, final, stopExitCode: stopWatch.exitCode };
    } finally {
      prompter?.close();
      stopWatch.dispose();
    }
  } finally {
    worker?.shutdown();
    await workerDone;
    if (worker) await releaseWorkerEnvironments(worker);
    await store.close();
    await connection.close();
  }
}

/**
 * Quitting before the session ended: kill the commands still running here; a session whose
 * embedded server goes down with this process is recorded as abandoned, saying why, and what it
 * ran in the background here stops (nothing could end it later). On a shared server the session
 * lives on, cancellation requested, for other workers to finish.
 */
async function abandonRun(run: {
  sessionId: string;
  cause: StopCause;
  connection: TemporalConnection;
  store: SessionStore;
  backend: string;
  abandonWatch?: AbandonWatch;
  note: (message: string) => void;
}): Promise<void> {
  killRunningCommands();
  if (!run.connection.embedded) {
    run.note(`Quit. Session ${run.sessionId} stays on ${run.connection.address} with its cancellation requested, for another worker to finish.`);
    return;
  }
  run.note(`Quit. Session ${run.sessionId} is abandoned: the Temporal server this command started stops with it.`);
  try {
    const reason = `Abandoned: hermes-temporal run was stopped (${run.cause}) before the session ended, and the Temporal server it had started stopped with it`;
    await abandonSession(run.store, run, reason);
    run.abandonWatch?.disarm();
  } finally {
    run.connection.abandon();
  }
}

const KEEP_STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** Runs `wait` with an AbortSignal that the stop signals abort, then lets the signals be. */
async function keepingServer(wait: (stop: AbortSignal) => Promise<void>): Promise<void> {
  const stopped = new AbortController();
  const stop = () => stopped.abort();
  for (const signal of KEEP_STOP_SIGNALS) process.on(signal, stop);
  try {
    await wait(stopped.signal);
  } finally {
    for (const signal of KEEP_STOP_SIGNALS) process.off(signal, stop);
  }
}

/** With no TEMPORAL_ADDRESS, a command that needs a lasting server uses a running `dev` one. */
function withSharedServer(config: LoadedConfig, needsSharedServer: boolean): LoadedConfig {
  if (config.temporal.address || !needsSharedServer) return config;
  const dev = findRunningDevServer(config.home);
  return dev ? { ...config, temporal: { ...config.temporal, address: dev.address, ...(dev.uiUrl ? { ui_url: dev.uiUrl } : {}) } } : config;
}

/** Process exit code for how a session ended. */
export function exitCodeFor(final: FinalEvent | undefined): number {
  if (!final) return 0;
  if (final.status === 'completed') return 0;
  if (final.status === 'cancelled') return 130;
  return final.status === 'max_turns' ? 2 : 1;
}
