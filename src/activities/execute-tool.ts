// One tool call as an activity: load the call's arguments from the store, run it through the
// registry, store the result at the seq the workflow gave, and return a small summary. Secrets
// are redacted here, once, before the result reaches the store, history (previews, heartbeats,
// failures) and so the model.
import { activityInfo, cancellationSignal, CompleteAsyncError } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { Logger } from '../logging';
import type { EnvironmentFactory } from '../environments/factory';
import type { SecretRedactor } from '../environments/secret-redaction';
import type { HookRegistry } from '../hooks/hook-registry';
import { afterCall, checkBeforeCall, preToolCallPayload } from '../hooks/tool-call-hooks';
import { handleFunctionCall, parseToolArguments } from '../registry/handle-function-call';
import type { ToolRegistry } from '../registry/registry';
import { applyResultBudget } from '../registry/result-budget';
import { isErrorResult, toolError } from '../registry/results';
import { DEFAULT_MAX_RESULT_CHARS, isRetrySafeCall, mayChangeWorkspace, type ToolContext, type ToolServices, type ToolSettings } from '../registry/tool-entry';
import type { SessionStore, StoredMessage } from '../store/session-store';
import { commandIdFor, type EnvironmentHandle } from '../environments/terminal-environment';
import { REFUSALS_STORED_TOGETHER, type ExecuteToolInput, type ToolOutcome } from '../workflows/session-types';
import { pathsMovedSinceAssessment, type AssessCommandInput, type LoadedCall } from './assess-tool-call';
import { clearedWithoutAsking } from '../approval-signals/cleared-call';
import type { ApprovalGateResult, CommandAssessment } from '../approval-signals/approval-types';
import { createCodeCallChannel, type SignalSession } from './code-call-channel';
import { CODE_CALLABLE_TOOLS, codeCallRefusal } from '../code-execution/callable-tools';
import { heartbeatIntervalMs, startHeartbeat, type HeartbeatSink } from './heartbeat';
import type { HandedActivities } from './handed-activities';
import type { Semaphore } from '../semaphore';
import { clip } from './tool-call-summary';
import { stripAnsi } from '../tools/terminal-output';
import type { BeforeChange } from '../checkpoints/turn-checkpoints';
import { recordedWorkspace } from '../workflows/recorded-workspace';

const PREVIEW_CHARS = 200;

interface ToolHeartbeat {
  phase?: 'started';
  outputTail?: string;
}

export interface ExecuteToolDeps {
  registry: ToolRegistry;
  store: SessionStore;
  environments: EnvironmentFactory;
  settings: ToolSettings;
  logger: Logger;
  /** Hides the worker's secrets and well-known key formats in everything the tool hands back. */
  redactor: SecretRedactor;
  /** pre_tool_call / post_tool_call / transform hooks of plugins and the config. */
  hooks: HookRegistry;
  /** Rings the session workflow when an execute_code script asks for a tool call (absent: scripts cannot call tools). */
  signalSession?: SignalSession;
  /** Worker-side services handed to tools (memory, past sessions). */
  services?: ToolServices;
  /** The approval gate's assessment of a call (the `assessCommand` activity), for calls sent with a `gatePolicy`. */
  assess: (input: AssessCommandInput, loaded?: LoadedCall) => Promise<CommandAssessment>;
  /** Checkpoints the session's workspace before a call that may change it (absent: none). */
  beforeChange?: BeforeChange;
  /** Where an execute_code script waits for its tool calls without holding a worker slot (absent: in its activity). */
  handed?: HandedActivities;
  /** The scripts this worker runs at once, when they run outside their activities. */
  scriptSlots?: Semaphore;
}

/** What a tool call takes from the activity that runs it, or from the set it was handed to. */
interface CallScope {
  /** The last heartbeat of an earlier attempt: whether a command had started. */
  previousDetails: ToolHeartbeat | undefined;
  workflowId: string;
  signal: AbortSignal;
  /** Absent: the activity's own heartbeat. */
  sink?: HeartbeatSink;
}

/**
 * Calls the gate refused, written together: each goes through executeTool, which runs nothing for
 * a refusal. A flood of refused calls cost an activity each (two thousand took ~35 s, one after
 * another, and 6,000 history events).
 */
export function createStoreRefusalsActivity(executeTool: (input: ExecuteToolInput) => Promise<ToolOutcome>) {
  return async function storeRefusals(inputs: ExecuteToolInput[]): Promise<ToolOutcome[]> {
    if (inputs.length > REFUSALS_STORED_TOGETHER || inputs.some((input) => input.gate?.approved !== false)) {
      throw ApplicationFailure.nonRetryable(`storeRefusals takes at most ${REFUSALS_STORED_TOGETHER} calls, each refused by the gate`);
    }
    const outcomes: ToolOutcome[] = [];
    for (const input of inputs) outcomes.push(await executeTool(input));
    return outcomes;
  };
}

export function createExecuteToolActivity(deps: ExecuteToolDeps) {
  const { redactor } = deps;
  return async function executeTool(input: ExecuteToolInput): Promise<ToolOutcome> {
    const info = activityInfo();
    const scope: CallScope = {
      previousDetails: info.heartbeatDetails as ToolHeartbeat | undefined,
      workflowId: info.workflowExecution?.workflowId ?? '',
      signal: cancellationSignal(),
    };
    // A script spends most of its life waiting for its own tool calls, which need worker slots to
    // run: held in its activity, scripts filling every slot would wait for ever. It runs outside
    // the activity instead, holding no slot (refusals run nothing, and are written in place).
    if (input.innerCalls && input.gate?.approved !== false && deps.handed?.accepting) {
      const heartbeatTimeoutMs = info.heartbeatTimeoutMs;
      const slots = deps.scriptSlots;
      const details = slots ? { waiting: `for one of the worker's ${slots.limit} script slots (worker.max_concurrent_scripts)` } : {};
      deps.handed.take(info.taskToken, { what: 'execute_code script', details, heartbeatMs: heartbeatIntervalMs(heartbeatTimeoutMs), finishOnStop: true }, async (signal, heartbeat) => {
        const release = await slots?.acquire(signal);
        try {
          return await run(input, { ...scope, signal, sink: { heartbeat, heartbeatTimeoutMs } });
        } finally {
          release?.();
        }
      });
      throw new CompleteAsyncError();
    }
    return run(input, scope);
  };

  async function run(input: ExecuteToolInput, scope: CallScope): Promise<ToolOutcome> {
    try {
      return await runTool(input, scope);
    } catch (error) {
      // A failure's message lands in workflow history (and may reach the model): hide secrets in it too.
      throw redactFailure(error, redactor);
    }
  }

  async function runTool(input: ExecuteToolInput, scope: CallScope): Promise<ToolOutcome> {
    // The gate as known so far (store() is called on every path, some before the call may run).
    let approvedGate: ApprovalGateResult | undefined = input.gate;
    // Set once, below; store() may run before that.
    let codeCalls: ReturnType<typeof createCodeCallChannel> | undefined;
    // Idempotent: a retry after the result was stored returns it without running the tool again.
    const existing = await deps.store.getMessage(input.sessionId, input.seq);
    if (existing) return outcomeOf(existing);

    const previous = scope.previousDetails;
    const entry = deps.registry.get(input.name);
    const session = await deps.store.getSession(input.sessionId);
    const assistant = await deps.store.getMessage(input.sessionId, input.assistantSeq);
    const call = assistant?.toolCalls?.find((candidate) => candidate.id === input.toolCallId);
    const retrySafe = isRetrySafeCall(entry, parseToolArguments(call?.arguments));
    if (previous?.phase === 'started' && !retrySafe) {
      // Killed first, so the log it left holds everything it printed; the heartbeat tail (throttled,
      // so possibly stale or empty) only stands in where the backend keeps no log.
      const orphan = commandIdFor(input.sessionId, input.toolCallId);
      const printed = await deps.environments
        .attach(input.environment)
        .then(async (environment) => {
          await environment.killOrphan(orphan);
          return environment.readOrphanOutput(orphan);
        })
        .catch(() => undefined);
      return store(interruptedResult(input.name, printed ?? previous.outputTail));
    }

    if (!session || !call) {
      return store(toolError(`Tool call ${input.toolCallId} was not found in the session transcript`));
    }
    if (!session.toolNames.includes(input.name)) {
      return store(toolError(`Unknown tool: ${input.name}`, { available_tools: session.toolNames }));
    }
    // A script's call runs what was stored for it, and only what scripts may call.
    if (input.parentToolCallId && (call.name !== input.name || !(CODE_CALLABLE_TOOLS as readonly string[]).includes(input.name))) {
      return store(toolError(`${input.name} cannot be called from execute_code`));
    }
    const refusal = input.parentToolCallId ? codeCallRefusal(input.name, parseToolArguments(call.arguments)) : undefined;
    if (refusal) return store(toolError(refusal));

    let gate = input.gate;
    // Assessed here, at the moment it would run: a call the policy runs unasked saves the workflow a step.
    const policyHere = !gate && entry?.assess ? input.gatePolicy : undefined;
    if (policyHere) {
      const where = { sessionId: input.sessionId, assistantSeq: input.assistantSeq, toolCallId: input.toolCallId, environment: input.environment };
      const assessment = await deps.assess(where, { call, session });
      gate = clearedWithoutAsking(assessment, policyHere);
      if (!gate) return { seq: input.seq, ok: false, preview: '', resultChars: 0, needsGate: assessment };
    }
    if (gate && !gate.approved) {
      // A hook's block reads as the hook wrote it, and the outcome in history names the hook.
      if (gate.blockedBy) return { ...(await store(toolError(gate.message))), blockedBy: gate.blockedBy };
      return store(JSON.stringify({ output: '', exit_code: -1, error: gate.message, status: 'blocked' }));
    }
    const environment = await deps.environments.attach(input.environment);
    // Paths judged by an earlier activity (or a human, maybe hours ago) are checked again now;
    // judged a moment ago in this activity, a second look would only repeat the first.
    if (gate?.checkedPaths && entry?.assess && !policyHere) {
      const args = parseToolArguments(call.arguments) ?? {};
      const moved = await pathsMovedSinceAssessment(entry, args, gate.checkedPaths, environment.workspace);
      if (moved) return store(JSON.stringify({ output: '', exit_code: -1, error: moved, status: 'blocked' }));
    }
    // Hooks may take a while: the activity stays alive meanwhile, but is not "started" until the
    // tool is. Without pre_tool_call hooks the first heartbeat already says "started", as before.
    const guarded = deps.hooks.has('pre_tool_call') && !(gate?.approved && gate.hooksChecked);
    // Only a local workspace is on this machine for the worker to keep a copy of. A script's own
    // calls are part of its execute_code call, whose turn was checkpointed before it started.
    const checkpointed = deps.beforeChange && input.environment.backend === 'local' && !input.parentToolCallId && mayChangeWorkspace(entry, parseToolArguments(call.arguments));
    // Hooks and the checkpoint come before the tool starts: a worker dying meanwhile ran nothing.
    const preparing = guarded || checkpointed;
    // No early beat while hooks run: the first one the server sees should already say "started"
    // (later beats within a second are held back by the SDK's throttle).
    const heartbeat = startHeartbeat(preparing ? {} : { phase: 'started' }, { immediate: !retrySafe && !preparing, ...(scope.sink ? { sink: scope.sink } : {}) });
    approvedGate = gate;
    // eslint-disable-next-line prefer-const -- declared above: store() reads it on every path
    codeCalls =
      input.innerCalls && deps.signalSession
        ? createCodeCallChannel({
            store: deps.store,
            signalSession: deps.signalSession,
            redactor,
            input: { ...input, innerCalls: input.innerCalls },
            workflowId: scope.workflowId,
            sessionTools: session.toolNames,
            signal: scope.signal,
          })
        : undefined;
    try {
      const args = parseToolArguments(call.arguments);
      const identity = { sessionId: input.sessionId, toolCallId: input.toolCallId, name: input.name, ...(input.parentToolCallId ? { parentToolCallId: input.parentToolCallId } : {}) };
      const hookPayload = args && preToolCallPayload(identity, args);
      if (hookPayload && guarded) {
        const decision = await checkBeforeCall(deps.hooks, hookPayload);
        // The model reads the hook's reason; the outcome (in history) names the hook that blocked.
        if (decision.action === 'block') return { ...(await store(toolError(decision.message))), blockedBy: decision.source };
      }
      if (checkpointed) {
        const workspace = recordedWorkspace(input.environment) ?? session.cwd;
        await deps.beforeChange!({ sessionId: input.sessionId, turn: input.assistantSeq, toolCallId: input.toolCallId, tool: input.name, workspace });
      }
      // Recorded before a non-repeatable tool starts, so a retry after a crash knows not to re-run it.
      if (preparing) heartbeat.update({ phase: 'started' });
      const startedMs = Date.now();
      const context: ToolContext = {
        sessionId: input.sessionId,
        toolCallId: input.toolCallId,
        taskId: input.sessionId,
        userTask: session.task,
        // What the tool opens is judged again against the paths the gate checked (local-workspace.ts).
        workspace: gate?.checkedPaths ? (environment.workspace.pinned?.(gate.checkedPaths) ?? environment.workspace) : environment.workspace,
        environment,
        signal: scope.signal,
        // Heartbeat details (the output tail) are kept in history and shown in the UI.
        heartbeat: (details) => heartbeat.update(typeof details === 'object' && details ? redactor.redactValue({ ...details }) : {}),
        settings: deps.settings,
        ...(deps.services ? { services: deps.services } : {}),
        ...(gate ? { commandApproval: gate } : {}),
        ...(codeCalls ? { callTool: codeCalls.callTool, callableTools: codeCalls.callableTools } : {}),
        ...(deps.hooks.has('transform_terminal_output')
          ? { transformTerminalOutput: (terminal) => deps.hooks.transform('transform_terminal_output', { ...terminal, task_id: input.sessionId, env_type: input.environment.backend }, terminal.output) }
          : {}),
      };
      const dispatched = await handleFunctionCall(input.name, call.arguments, context, deps.registry);
      const transformed = hookPayload ? await afterCall(deps.hooks, hookPayload, dispatched, Date.now() - startedMs) : dispatched;
      // Redacted before an oversized result is saved to a file, so the file holds no secret either.
      const raw = redactor.redactResult(transformed);
      const result = await applyResultBudget(raw, entry?.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS, {
        workspace: environment.workspace,
        sessionId: input.sessionId,
        toolCallId: input.toolCallId,
      });
      return store(result, environment.handle, { redacted: true });
    } finally {
      heartbeat.stop();
    }

    async function store(content: string, after?: EnvironmentHandle, options: { redacted?: boolean } = {}): Promise<ToolOutcome> {
      const message = await deps.store.appendMessage(input.sessionId, {
        seq: input.seq,
        role: 'tool',
        content: options.redacted ? content : redactor.redactResult(content),
        toolCallId: input.toolCallId,
        name: input.name,
        // What needed a person's approval (or a script's call that did) stays with this session.
        ...((approvedGate?.approved && approvedGate.sensitive) || codeCalls?.sawSensitive() ? { sensitive: true as const } : {}),
      });
      const outcome = outcomeOf(message);
      return after && after.cwd !== input.environment.cwd ? { ...outcome, environment: after } : outcome;
    }
  }
}

/** The error with secrets hidden in its message and stack (cancellations pass untouched). */
export function redactFailure(error: unknown, redactor: SecretRedactor): unknown {
  if (!(error instanceof Error) || error instanceof CancelledFailure) return error;
  try {
    error.message = redactor.redact(error.message);
    if (error.stack) error.stack = redactor.redact(error.stack);
  } catch {
    // A frozen error keeps its text; nothing better can be done without losing the failure itself.
  }
  return error;
}

export function outcomeOf(message: StoredMessage): ToolOutcome {
  const content = message.content ?? '';
  const backgroundStarted = message.name === 'terminal' ? startedBackgroundProcess(content) : undefined;
  return {
    seq: message.seq,
    ok: !isErrorResult(content),
    preview: clip(content.replace(/\s+/g, ' '), PREVIEW_CHARS),
    resultChars: content.length,
    ...(backgroundStarted ? { backgroundStarted } : {}),
  };
}

/** The process a terminal(background=true) result reports, so the workflow can watch it. */
export function startedBackgroundProcess(content: string): ToolOutcome['backgroundStarted'] {
  if (!content.startsWith('{')) return undefined;
  try {
    const parsed = JSON.parse(content) as { output?: unknown; session_id?: unknown; notify_on_complete?: unknown; error?: unknown };
    if (parsed.output !== 'Background process started' || typeof parsed.session_id !== 'string' || parsed.error) return undefined;
    return { processId: parsed.session_id, notifyOnComplete: parsed.notify_on_complete === true };
  } catch {
    return undefined;
  }
}

/** Kept here for existing importers; the check lives with the other result helpers. */
export { isErrorResult };

/** What the model hears when the worker running a command died: it may have partly run. */
function interruptedResult(name: string, printed: string | undefined): string {
  return JSON.stringify({
    output: stripAnsi(printed ?? '').trim(),
    exit_code: 130,
    error:
      `Interrupted: the worker running this ${name} call stopped before it finished. ` +
      'It may have partially run; check its effects before running it again.',
    status: 'interrupted',
  });
}
