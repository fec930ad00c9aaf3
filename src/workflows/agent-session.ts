// The agent session workflow: model turn, tool calls (concurrent where independent), repeat,
// until the model answers without tools or the turn limit is reached. Transcripts stay in the
// session store; history holds seq numbers and short summaries only.
import {
  type ActivityOptions,
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  ContinueAsNew,
  allHandlersFinished,
  condition,
  continueAsNew,
  isCancellation,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { HermesActivities } from '../activities';
import {
  HermesModel,
  HermesParentSession,
  HermesStatus,
  HermesStopReason,
  HermesToolCalls,
  type SessionStatusValue,
} from '../temporal/search-attributes';
import { statusQuery, transcriptQuery } from './messages';
import { SessionState } from './session-state';
import {
  DEFAULT_SESSION_LIMITS,
  type ModelTurn,
  type SessionInput,
  type SessionLimits,
  type SessionResult,
  type ToolCallPlan,
} from './session-types';
import { planToolBatches } from './tool-batches';

export const SESSION_FAILED = 'Hermes.Session.Failed';

export async function agentSession(input: SessionInput): Promise<SessionResult> {
  const limits: SessionLimits = { ...DEFAULT_SESSION_LIMITS, ...input.limits };
  const state = new SessionState(input);
  setHandler(statusQuery, () => state.statusView());
  setHandler(transcriptQuery, () => state.transcriptView());

  const { prepareSession, finishSession } = proxyActivities<HermesActivities>({
    startToCloseTimeout: '1 minute',
    retry: { maximumAttempts: 10 },
  });
  const modelOptions: ActivityOptions = {
    startToCloseTimeout: `${limits.modelTimeoutSeconds + 30} seconds`,
    heartbeatTimeout: '1 minute',
    retry: {
      initialInterval: limits.modelRetryInitialIntervalMs,
      backoffCoefficient: 2,
      maximumInterval: '1 minute',
      maximumAttempts: limits.modelMaxAttempts,
    },
  };
  // Tool errors come back as results, so a retry means the infrastructure failed (DESIGN.md rule 6).
  const toolOptions: ActivityOptions = {
    startToCloseTimeout: `${limits.toolTimeoutSeconds} seconds`,
    heartbeatTimeout: `${limits.toolHeartbeatTimeoutSeconds} seconds`,
    retry: { initialInterval: '1 second', maximumAttempts: 5 },
  };
  const { callModel } = proxyActivities<HermesActivities>(modelOptions);
  const { executeTool } = proxyActivities<HermesActivities>(toolOptions);

  const setStatus = (status: SessionStatusValue) => {
    state.status = status;
    upsertSearchAttributes([{ key: HermesStatus, value: status }]);
  };
  upsertSearchAttributes([
    { key: HermesStatus, value: 'running' },
    { key: HermesModel, value: input.model },
    ...(input.parentSessionId ? [{ key: HermesParentSession, value: input.parentSessionId }] : []),
  ]);

  const finish = async (result: SessionResult): Promise<SessionResult> => {
    state.result = result;
    await finishSession({ sessionId: input.sessionId, status: result.status, answer: result.answer });
    setStatus('completed');
    upsertSearchAttributes([
      { key: HermesStopReason, value: result.status },
      { key: HermesToolCalls, value: state.toolCallCount },
    ]);
    setCurrentDetails(`**${result.status}** after ${result.turns} turns and ${result.toolCalls} tool calls`);
    await condition(allHandlersFinished);
    return result;
  };

  const runCall = async (call: ToolCallPlan, seq: number, assistantSeq: number) => {
    state.toolStarted(call, Date.now());
    const outcome = await executeTool.executeWithOptions(
      { ...toolOptions, summary: call.summary },
      [{ sessionId: input.sessionId, seq, assistantSeq, toolCallId: call.id, name: call.name, environment: state.environment }],
    );
    state.toolFinished(call, outcome, Date.now());
  };

  const runTools = async (turn: ModelTurn) => {
    const firstSeq = state.reserveSeqs(turn.toolCalls.length);
    const seqOf = new Map(turn.toolCalls.map((call, index) => [call.id, firstSeq + index]));
    for (const batch of planToolBatches(turn.toolCalls)) {
      const run = (call: ToolCallPlan) => runCall(call, seqOf.get(call.id) as number, turn.seq);
      if (batch.concurrent) await Promise.all(batch.calls.map(run));
      else for (const call of batch.calls) await run(call);
    }
    upsertSearchAttributes([{ key: HermesToolCalls, value: state.toolCallCount }]);
  };

  try {
    if (!input.resume) {
      const prepared = await prepareSession({
        sessionId: input.sessionId,
        workflowId: workflowInfo().workflowId,
        task: input.task,
        model: input.model,
        cwd: input.environment.cwd,
        toolsets: input.toolsets,
        disabledToolsets: input.disabledToolsets,
        parentSessionId: input.parentSessionId,
      });
      state.nextSeq = prepared.nextSeq;
    }

    let turnsThisRun = 0;
    while (state.turn < input.maxTurns) {
      state.turn += 1;
      turnsThisRun += 1;
      setCurrentDetails(`Turn ${state.turn}/${input.maxTurns}: waiting for the model (${input.model})`);
      const turn = await callModel.executeWithOptions({ ...modelOptions, summary: `${input.model}, turn ${state.turn}` }, [
        { sessionId: input.sessionId, seq: state.reserveSeqs(1), model: input.model, baseUrl: input.baseUrl },
      ]);
      state.recordAssistant(turn.seq, turn.content ?? turn.toolCalls.map((call) => call.summary).join('; '));
      if (!turn.toolCalls.length) {
        return await finish({ status: 'completed', answer: turn.content ?? '', turns: state.turn, toolCalls: state.toolCallCount });
      }
      setCurrentDetails(`Turn ${state.turn}/${input.maxTurns}: running ${turn.toolCalls.map((call) => call.name).join(', ')}`);
      await runTools(turn);

      if (state.turn < input.maxTurns && (workflowInfo().continueAsNewSuggested || turnsThisRun >= limits.turnsPerRun)) {
        await condition(allHandlersFinished);
        return await continueAsNew<typeof agentSession>({ ...input, resume: state.carryOver() });
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
    if (isCancellation(error)) {
      await CancellationScope.nonCancellable(async () => {
        setStatus('cancelled');
        await finishSession({ sessionId: input.sessionId, status: 'cancelled' });
      });
      throw error;
    }
    const message = describeFailure(error);
    state.lastError = message;
    setStatus('failed');
    setCurrentDetails(`**failed**: ${message}`);
    await finishSession({ sessionId: input.sessionId, status: 'failed', error: message }).catch(() => undefined);
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
