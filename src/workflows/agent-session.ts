// The agent session workflow: model turn, tool calls (concurrent where independent), repeat,
// until the model answers without tools or the turn limit is reached. Calls the approval gate
// finds dangerous (commands, protected writes, secret reads) wait for a human decision first.
// Transcripts stay in the session store; history holds seq numbers and short summaries only.
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  ContinueAsNew,
  allHandlersFinished,
  condition,
  continueAsNew,
  isCancellation,
  patched,
  setCurrentDetails,
  setHandler,
  upsertMemo,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { ApprovalGateResult } from '../approval-signals/approval-types';
import {
  HermesModel,
  HermesParentSession,
  HermesStatus,
  HermesStopReason,
  HermesToolCalls,
  type SessionStatusValue,
} from '../temporal/search-attributes';
import { PENDING_APPROVALS_MEMO, pendingApprovalsMemo } from '../approval-signals/pending-approvals-memo';
import { statusQuery, transcriptQuery } from './messages';
import { sessionActivities } from './session-activities';
import { BackgroundWatches } from './background-watches';
import { awaitingApprovalDetails, installApprovals } from './session-approvals';
import { SessionState } from './session-state';
import {
  DEFAULT_SESSION_LIMITS,
  type ModelTurn,
  type SessionInput,
  type SessionLimits,
  type SessionResult,
  type ToolCallPlan,
  type ToolOutcome,
} from './session-types';
import { planToolBatches } from './tool-batches';

export const SESSION_FAILED = 'Hermes.Session.Failed';
/** Histories recorded before every declaring tool was gated replay as they ran (terminal calls only). */
const GATE_EVERY_TOOL_PATCH = 'gate-every-declaring-tool';
/** Histories recorded before pending approvals were kept in the memo replay without it. */
const PENDING_APPROVALS_MEMO_PATCH = 'pending-approvals-memo';

export async function agentSession(input: SessionInput): Promise<SessionResult> {
  const limits: SessionLimits = { ...DEFAULT_SESSION_LIMITS, ...input.limits };
  const activities = sessionActivities(limits, input.toolTaskQueue);
  const state = new SessionState(input);
  const setStatus = (status: SessionStatusValue) => {
    state.status = status;
    upsertSearchAttributes([{ key: HermesStatus, value: status }]);
  };
  const approvals = installApprovals(input, state, activities, (awaiting) => {
    setStatus(awaiting ? 'awaiting_approval' : 'running');
    // The UI's current-details line says what a human is being asked, and how to answer.
    const waiting = approvals.pending();
    if (waiting.length) setCurrentDetails(awaitingApprovalDetails(waiting, { acceptUnsigned: input.approvals?.acceptUnsigned ?? false }));
    // What is asked is kept on the workflow too, so a decision can be signed and signalled while
    // no worker runs to answer queries (the CLI reads it with describe).
    if (patched(PENDING_APPROVALS_MEMO_PATCH)) upsertMemo({ [PENDING_APPROVALS_MEMO]: pendingApprovalsMemo(waiting) });
  });
  const watches = new BackgroundWatches(input.resume ?? {}, (processId) =>
    activities.watchBackgroundProcess({ environment: state.environment, processId, sessionId: input.sessionId }),
  );
  setHandler(statusQuery, () => state.statusView(approvals.pending()));
  setHandler(transcriptQuery, () => state.transcriptView());
  upsertSearchAttributes([
    { key: HermesStatus, value: 'running' },
    { key: HermesModel, value: input.model },
    ...(input.parentSessionId ? [{ key: HermesParentSession, value: input.parentSessionId }] : []),
  ]);

  // The session's environment goes when the session does, however it ends.
  const destroyEnvironment = () =>
    CancellationScope.nonCancellable(async () => {
      if (state.environment.backend === 'local' || !state.environment.id) return;
      await activities.destroyEnvironment({ handle: state.environment }).catch(() => undefined);
    });

  const finish = async (result: SessionResult): Promise<SessionResult> => {
    state.result = result;
    watches.cancelAll();
    await destroyEnvironment();
    await activities.finishSession({ sessionId: input.sessionId, status: result.status, answer: result.answer });
    setStatus('completed');
    upsertSearchAttributes([
      { key: HermesStopReason, value: result.status },
      { key: HermesToolCalls, value: state.toolCallCount },
    ]);
    setCurrentDetails(`**${result.status}** after ${result.turns} turns and ${result.toolCalls} tool calls`);
    await condition(allHandlersFinished);
    return result;
  };

  const runCall = async (call: ToolCallPlan, seq: number, assistantSeq: number, pendingGate: Promise<ApprovalGateResult> | undefined, assessedCwd: string) => {
    let gate = pendingGate && (await pendingGate);
    // An earlier call of the turn changed directory: relative paths now lead elsewhere, so judge again.
    if (gate?.approved && state.environment.cwd !== assessedCwd && patched(GATE_EVERY_TOOL_PATCH)) {
      gate = await (await approvals.prepare([call], assistantSeq)).get(call.id);
    }
    state.toolStarted(call, Date.now());
    let outcome: ToolOutcome;
    try {
      outcome = await activities.executeTool.executeWithOptions({ ...activities.toolOptions, summary: call.summary }, [
        { sessionId: input.sessionId, seq, assistantSeq, toolCallId: call.id, name: call.name, environment: state.environment, ...(gate ? { gate } : {}) },
      ]);
    } catch (error) {
      if (isCancellation(error)) throw error;
      // The tool's infrastructure failed even after retries: the model hears it; the session goes on.
      // A full store fails only the writing of a result, after the tool ran (its result could not be written): the model must
      // not believe the call never happened, and run it again.
      const storeFault = error instanceof ActivityFailure && error.cause instanceof ApplicationFailure && error.cause.type === 'Hermes.Store.Full';
      const content = storeFault
        ? JSON.stringify({ error: `The ${call.name} call ran, but its result could not be written to the session store, so its output and exit code are lost: ${describeFailure(error)}`, status: 'result_lost' })
        : JSON.stringify({ error: `Tool infrastructure failed: ${describeFailure(error)}`, status: 'infrastructure_error' });
      await activities.appendToolResult({ sessionId: input.sessionId, seq, toolCallId: call.id, name: call.name, content });
      outcome = { seq, ok: false, preview: content.slice(0, 200), resultChars: content.length };
    }
    state.toolFinished(call, outcome, Date.now());
    if (outcome.backgroundStarted?.notifyOnComplete) watches.start(outcome.backgroundStarted.processId);
  };

  /** Tells the model, as a user message, about background processes that ended. */
  const deliverNotifications = async () => {
    const notifications = watches.take();
    if (!notifications.length) return;
    await activities.appendSessionMessage({ sessionId: input.sessionId, seq: state.reserveSeqs(1), role: 'user', content: notifications.join('\n\n') });
  };

  const runTools = async (turn: ModelTurn) => {
    const firstSeq = state.reserveSeqs(turn.toolCalls.length);
    const seqOf = new Map(turn.toolCalls.map((call, index) => [call.id, firstSeq + index]));
    // Every call whose tool declares what the gate must see is assessed, all at once, before any runs.
    const assessedCwd = state.environment.cwd;
    const gatesEveryTool = patched(GATE_EVERY_TOOL_PATCH);
    const legacyGated = (call: ToolCallPlan) => call.name === 'terminal';
    const gates = await approvals.prepare(turn.toolCalls.filter((call) => (gatesEveryTool ? call.needsAssessment === true : legacyGated(call))), turn.seq);
    for (const batch of planToolBatches(turn.toolCalls)) {
      const run = (call: ToolCallPlan) => runCall(call, seqOf.get(call.id) as number, turn.seq, gates.get(call.id), assessedCwd);
      if (batch.concurrent) await Promise.all(batch.calls.map(run));
      else for (const call of batch.calls) await run(call);
    }
    upsertSearchAttributes([{ key: HermesToolCalls, value: state.toolCallCount }]);
  };

  try {
    if (!input.resume) {
      const prepared = await activities.prepareSession({
        sessionId: input.sessionId,
        workflowId: workflowInfo().workflowId,
        task: input.task,
        model: input.model,
        cwd: input.environment.cwd,
        backend: input.environment.backend,
        toolsets: input.toolsets,
        disabledToolsets: input.disabledToolsets,
        parentSessionId: input.parentSessionId,
      });
      state.nextSeq = prepared.nextSeq;
      approvals.extendAllowlist(prepared.allowlist);
    }
    if (input.environment.backend !== 'local' && !state.environment.id) {
      setCurrentDetails(`Starting the ${input.environment.backend} environment`);
      state.environment = await activities.startEnvironment({ handle: { ...state.environment, sessionId: input.sessionId } });
    }

    let turnsThisRun = 0;
    while (state.turn < input.maxTurns) {
      state.turn += 1;
      turnsThisRun += 1;
      await deliverNotifications();
      setCurrentDetails(`Turn ${state.turn}/${input.maxTurns}: waiting for the model (${input.model})`);
      const turn = await activities.callModel.executeWithOptions({ ...activities.modelOptions, summary: `${input.model}, turn ${state.turn}` }, [
        { sessionId: input.sessionId, seq: state.reserveSeqs(1), model: input.model, baseUrl: input.baseUrl },
      ]);
      state.recordAssistant(turn.seq, turn.content ?? turn.toolCalls.map((call) => call.summary).join('; '));
      if (!turn.toolCalls.length) {
        if (watches.outstanding && state.turn < input.maxTurns) {
          // The model asked to hear when these end: wait for one, then let it react.
          setCurrentDetails(`Waiting for ${watches.outstanding} background process(es) the model asked to be told about`);
          await watches.waitForNews();
          if (watches.hasNotifications) continue;
        }
        return await finish({ status: 'completed', answer: turn.content ?? '', turns: state.turn, toolCalls: state.toolCallCount });
      }
      setCurrentDetails(`Turn ${state.turn}/${input.maxTurns}: running ${turn.toolCalls.map((call) => call.name).join(', ')}`);
      await runTools(turn);

      if (state.turn < input.maxTurns && (workflowInfo().continueAsNewSuggested || turnsThisRun >= limits.turnsPerRun)) {
        await condition(allHandlersFinished);
        return await continueAsNew<typeof agentSession>({
          ...input,
          resume: { ...state.carryOver(), ...watches.carryOver(), approvals: approvals.carryOver() },
        });
      }
    }
    return await finish({
      status: 'max_turns',
      answer: '',
      turns: state.turn,
      toolCalls: state.toolCallCount,
      reason: `Stopped after reaching the maximum of ${input.maxTurns} turns without a final answer`,
    });
  } catch (error) {
    if (error instanceof ContinueAsNew) throw error;
    watches.cancelAll();
    if (isCancellation(error)) {
      await CancellationScope.nonCancellable(async () => {
        setStatus('cancelled');
        await activities.finishSession({ sessionId: input.sessionId, status: 'cancelled' });
      });
      await destroyEnvironment();
      throw error;
    }
    const message = describeFailure(error);
    state.lastError = message;
    setStatus('failed');
    setCurrentDetails(`**failed**: ${message}`);
    await activities.finishSession({ sessionId: input.sessionId, status: 'failed', error: message }).catch(() => undefined);
    await destroyEnvironment();
    throw ApplicationFailure.create({ message, type: SESSION_FAILED, nonRetryable: true, cause: error as Error });
  }
}

/** One line an operator can act on: the root cause of a failed activity, not the wrapper. */
function describeFailure(error: unknown): string {
  if (error instanceof ActivityFailure) {
    const cause = error.cause;
    const what = error.activityType === 'callModel' ? 'Model call failed' : `Activity ${error.activityType} failed`;
    return `${what}: ${cause?.message ?? error.message}`;
  }
  return error instanceof Error ? error.message : String(error);
}
