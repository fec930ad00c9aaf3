// The agent session workflow: model turn, tool calls (concurrent where independent), repeat,
// until the model answers without tools or the turn limit is reached. Calls the approval gate
// finds dangerous (commands, protected writes, secret reads) wait for a human decision first.
// Transcripts stay in the session store; history holds seq numbers and short summaries only.
// The plan (todo) and sub-agents (delegate_task, child workflows) are session state kept here.
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
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import type { ApprovalGateResult } from '../approval-signals/approval-types';
import {
  HermesModel,
  HermesParentSession,
  HermesRootSession,
  HermesStatus,
  HermesStopReason,
  HermesToolCalls,
  type SessionStatusValue,
} from '../temporal/search-attributes';
import { PENDING_APPROVALS_MEMO, pendingApprovalsMemo } from '../approval-signals/pending-approvals-memo';
import { startDeadline } from './deadline';
import { DEFAULT_DELEGATION_SETTINGS } from './delegation-types';
import { descendantApprovalsSignal, statusQuery, subagentFinishedSignal, transcriptQuery } from './messages';
import { CodeCalls } from './code-calls';
import { HISTORY_FULL_RESULT, historyFull } from './history-budget';
import { buildReport, reportToParent, tellRootAboutApprovals } from './subagent-reporting';
import { parseDescendantApprovals, parseSubagentReport } from './signal-payloads';
import { Subagents } from './subagents';
import { TodoList } from './todo-list';
import { McpTools, mcpCallOptions } from './mcp-tools';
import { sessionActivities } from './session-activities';
import { BackgroundWatches } from './background-watches';
import { awaitingApprovalDetails, installApprovals } from './session-approvals';
import { SessionState } from './session-state';
import { markdownCode } from '../approval-signals/ui-markdown';
import { recordedWorkspace } from './recorded-workspace';
import {
  DEFAULT_SESSION_LIMITS,
  type ModelTurn,
  type SessionInput,
  type SessionLimits,
  type SessionResult,
  type ExecuteToolInput,
  type ToolCallPlan,
  type ToolOutcome,
} from './session-types';
import { CallSlots } from './call-slots';
import { gatedInTheirActivities, planToolBatches, type ToolBatch } from './tool-batches';
import { RefusedCalls } from './refused-calls';
import { ToolCountAttribute } from './tool-count-attribute';

export const SESSION_FAILED = 'Hermes.Session.Failed';
/** Histories recorded before every declaring tool was gated replay as they ran (terminal calls only). */
const GATE_EVERY_TOOL_PATCH = 'gate-every-declaring-tool';
/**
 * Histories recorded before the gate ran without local activities replay with them. (A lone gated
 * call is now assessed by its own tool activity, several by ordinary activities: a local activity's
 * result can reach the workflow in a later task than on replay, which moved approvals' times.)
 */
const GATE_WITHOUT_LOCAL_ACTIVITY_PATCH = 'gate-without-local-activity';
/** Marks the call whose tool activity assesses it (see approval-gate.ts). */
const GATED_IN_TOOL = 'gated-in-tool';
type CallGate = Promise<ApprovalGateResult> | typeof GATED_IN_TOOL;
/** Histories recorded before pending approvals were kept in the memo replay without it. */
const PENDING_APPROVALS_MEMO_PATCH = 'pending-approvals-memo';
/** Histories recorded before delegation trees replay without the root search attribute. */
const DELEGATION_TREE_PATCH = 'delegation-tree';
/**
 * Histories recorded before one upsert carried every search attribute a change sets (a status with
 * its pending count or stop reason) replay with an upsert each. Each upsert is a history event
 * and a visibility write on the server.
 */
const ONE_UPSERT_PER_CHANGE_PATCH = 'one-upsert-per-change';
/**
 * Histories recorded before the tool-call count reached visibility at most every few seconds
 * replay with an upsert after every turn.
 */
const TOOL_COUNT_EVERY_FEW_SECONDS_PATCH = 'tool-count-every-few-seconds';
/**
 * Sessions on the local backend recorded before their background processes were stopped with
 * the session replay without the activity that stops them.
 */
const STOP_LOCAL_BACKGROUND_PATCH = 'stop-local-background-processes';
/** Histories recorded before every local session's end looked through its workspace (new repositories and package configs in subfolders) replay without it. */
const LOCAL_END_CHECKS_PATCH = 'local-end-workspace-checks';
/** Histories recorded before root sessions checked who started them replay without the check. */
const SIGNED_START_PATCH = 'signed-session-start';
/** Children and continued runs recorded before their parent or previous run was checked replay without the check. */
const VERIFIED_LINEAGE_PATCH = 'verified-session-lineage';
/** Histories recorded before news of processes that ended while the model gave its last answer was delivered end there. */
const LATE_NOTIFICATIONS_PATCH = 'deliver-notifications-after-last-answer';
/** Histories recorded before a sub-agent's signalled report waited for its workflow's close replay with the report believed at once. */
const REPORTS_WAIT_FOR_CLOSE_PATCH = 'subagent-reports-wait-for-close';
/**
 * Histories recorded before the approval views (details line, memo, the root's list) were brought
 * up to date once per workflow task replay with an update per approval raised. A reply of many
 * gated calls made that quadratic: 190 commands of 4 KB wrote 190 memos of 80 KB in one task,
 * past the server's 4 MB message limit, and the session failed.
 */
const APPROVAL_VIEWS_ONCE_PER_TASK_PATCH = 'approval-views-once-per-task';
/**
 * Histories recorded before the status and pending count went to visibility once per workflow
 * task replay an upsert per approval raised: two thousand in one task, which took seconds.
 */
const APPROVAL_STATUS_ONCE_PER_TASK_PATCH = 'approval-status-once-per-task';
/** Histories recorded before a reply's gated calls were judged in batches replay one assessCommand a call. */
const ASSESS_IN_BATCHES_PATCH = 'assess-in-batches';
/** Histories recorded before approvals raised together shared a timer replay one timer an approval. */
const SHARED_APPROVAL_DEADLINES_PATCH = 'shared-approval-deadlines';
/** Histories recorded before a turn ran at most limits.maxParallelToolCalls calls at once replay all of a batch at once. */
const BOUNDED_PARALLEL_CALLS_PATCH = 'bounded-parallel-calls';
/** Histories recorded before background watches were limited (limits.maxParallelWatches) replay every watch at once. */
const BOUNDED_WATCHES_PATCH = 'bounded-background-watches';
/** Histories recorded before refused calls were written together replay an executeTool activity each. */
const REFUSALS_TOGETHER_PATCH = 'refusals-stored-together';
/** How much of the refused calls' summaries names their activity in the Web UI. */
const REFUSALS_SUMMARY_CHARS = 1000;
/** The failure type of a root session whose start no key the worker trusts signed. */
export const START_REFUSED = 'Hermes.Session.StartRefused';
/** How long an idle parent waits, after a report, for its other children's before the model reads them. */
const REPORT_SETTLE = '1 second';
/** How much of a sub-agent's answer its workflow result (kept in the parent's history too) holds. */
const SUBAGENT_RESULT_ANSWER_CHARS = 1000;

export async function agentSession(input: SessionInput): Promise<SessionResult> {
  const limits: SessionLimits = { ...DEFAULT_SESSION_LIMITS, ...input.limits };
  const activities = sessionActivities(limits, input.toolTaskQueue);
  const state = new SessionState(input);
  const delegation = { ...DEFAULT_DELEGATION_SETTINGS, ...input.delegation };
  const todos = new TodoList(input.resume?.todos);
  const mcp = new McpTools(input, activities);
  // The UI's details line: what the session does now, plus what an operator should know about its tree.
  let currentDetails = '';
  const showDetails = (text: string) => {
    currentDetails = text;
    const waiting = subagents.descendantApprovals();
    const descendants = waiting.length
      ? ` — **A sub-agent awaits approval**: ${waiting.map((entry) => `${entry.sessionId}${entry.first === undefined ? '' : ` ${markdownCode(entry.first)}`}`).join('; ')}. Answer with \`hermes-temporal pending ${input.sessionId}\` and \`approve\`.`
      : '';
    const plan = todos.progressLine();
    setCurrentDetails(`${text}${plan ? ` (${plan})` : ''}${descendants}`);
  };
  const subagents = new Subagents(
    input,
    delegation,
    input.resume?.subagents,
    (event) => {
      state.childEvent(event);
      if (event.type === 'child_finished') showDetails(currentDetails);
    },
    patched(REPORTS_WAIT_FOR_CLOSE_PATCH),
  );
  // All decided in the first task, before any local activity could split one (see below).
  const gateInTools = patched(GATE_WITHOUT_LOCAL_ACTIVITY_PATCH);
  const oneUpsert = patched(ONE_UPSERT_PER_CHANGE_PATCH);
  const approvalViewsOncePerTask = patched(APPROVAL_VIEWS_ONCE_PER_TASK_PATCH);
  const assessInBatches = patched(ASSESS_IN_BATCHES_PATCH);
  const sharedDeadlines = patched(SHARED_APPROVAL_DEADLINES_PATCH);
  const approvalStatusOncePerTask = approvalViewsOncePerTask && patched(APPROVAL_STATUS_ONCE_PER_TASK_PATCH);
  const toolCount = new ToolCountAttribute(patched(TOOL_COUNT_EVERY_FEW_SECONDS_PATCH), () => state.toolCallCount);
  /** The status, with what else the same change sets (`alongside`, upserted first in older histories). */
  const setStatus = (status: SessionStatusValue, alongside: SearchAttributeUpdatePair[] = []) => {
    state.status = status;
    if (oneUpsert) return upsertSearchAttributes([{ key: HermesStatus, value: status }, ...toolCount.alongside(alongside)]);
    if (alongside.length) upsertSearchAttributes(alongside);
    upsertSearchAttributes([{ key: HermesStatus, value: status }]);
  };
  // What the status upsert carries, while it waits for the task's approval views (histories recorded before: one upsert per change).
  let queuedStatus: SearchAttributeUpdatePair[] | undefined;
  const showApprovals = () => {
    approvalViewsQueued = false;
    if (queuedStatus) {
      const alongside = queuedStatus;
      queuedStatus = undefined;
      setStatus(state.status, alongside);
    }
    // The UI's current-details line says what a human is being asked, and how to answer.
    const waiting = approvals.pending();
    if (input.subagent) tellRootAboutApprovals(input, input.subagent, waiting);
    if (waiting.length) setCurrentDetails(awaitingApprovalDetails(waiting, { acceptUnsigned: input.approvals?.acceptUnsigned ?? false }));
    // What is asked is kept on the workflow too, so a decision can be signed and signalled while
    // no worker runs to answer queries (the CLI reads it with describe).
    if (patched(PENDING_APPROVALS_MEMO_PATCH)) upsertMemo({ [PENDING_APPROVALS_MEMO]: pendingApprovalsMemo(waiting) });
  };
  let approvalViewsQueued = false;
  const approvals = installApprovals(input, state, { ...activities, assessCommand: gateInTools ? activities.assessCommand : activities.assessCommandLocally }, (awaiting, alongside) => {
    const status = awaiting ? 'awaiting_approval' : 'running';
    if (!approvalStatusOncePerTask) setStatus(status, alongside);
    else {
      state.status = status;
      queuedStatus = alongside;
    }
    if (!approvalViewsOncePerTask) return showApprovals();
    // Once the task's other steps have run: a turn of many gated calls raises its approvals together.
    if (approvalViewsQueued) return;
    approvalViewsQueued = true;
    void Promise.resolve().then(showApprovals);
  }, { assessInBatches, sharedDeadlines });
  const watches = new BackgroundWatches(
    input.resume ?? {},
    (processId) => activities.watchBackgroundProcess({ environment: state.environment, processId, sessionId: input.sessionId }),
    { atOnce: limits.maxParallelWatches, holds: () => patched(BOUNDED_WATCHES_PATCH) },
  );
  setHandler(statusQuery, () => ({
    ...state.statusView(approvals.pending()),
    todos: todos.snapshot(),
    children: subagents.views(),
    descendantApprovals: subagents.descendantApprovals(),
    ...(input.subagent ? { parentSessionId: input.parentSessionId, rootSessionId: input.subagent.rootSessionId, depth: input.subagent.depth } : {}),
  }));
  // Any client can send these, with anything: what does not read as a report is dropped.
  setHandler(subagentFinishedSignal, (payload) => {
    const report = parseSubagentReport(payload);
    if (report) subagents.claim(report);
  });
  setHandler(descendantApprovalsSignal, (payload) => {
    const entry = parseDescendantApprovals(payload);
    if (entry && subagents.noteDescendantApprovals(entry)) showDetails(currentDetails);
  });
  setHandler(transcriptQuery, () => state.transcriptView());
  const startAttributes: SearchAttributeUpdatePair[] = [
    { key: HermesStatus, value: 'running' },
    { key: HermesModel, value: input.model },
    ...(input.parentSessionId ? [{ key: HermesParentSession, value: input.parentSessionId }] : []),
  ];
  const rootAttribute: SearchAttributeUpdatePair = { key: HermesRootSession, value: input.subagent?.rootSessionId ?? input.sessionId };
  if (oneUpsert) {
    upsertSearchAttributes([...startAttributes, rootAttribute]);
  } else {
    upsertSearchAttributes(startAttributes);
    if (patched(DELEGATION_TREE_PATCH)) upsertSearchAttributes([rootAttribute]);
  }
  // Decided here, in the first task: first asked where an approval is raised, right after a local
  // activity (older histories), its marker can land in a later task than replay looks for it, and
  // the session would not replay. (A replay that finds no marker yet decides nothing: asked later.)
  patched(PENDING_APPROVALS_MEMO_PATCH);

  // The session's environment goes when the session does, however it ends. On the local backend
  // the machine stays: what goes is whatever the session still runs in the background.
  const destroyEnvironment = () =>
    CancellationScope.nonCancellable(async () => {
      const local = state.environment.backend === 'local';
      // Locally, the end also disarms what the session's commands left in subfolders (nested
      // repositories, package configs), too costly to look for after every command.
      if (local ? !(state.backgroundStarted ? patched(STOP_LOCAL_BACKGROUND_PATCH) : patched(LOCAL_END_CHECKS_PATCH)) : !state.environment.id) return;
      await activities.destroyEnvironment({ handle: state.environment }).catch(() => undefined);
    });

  /** A sub-agent tells its parent how it ended; a root has nobody to tell. */
  const report = async (status: SessionResult['status'] | 'failed' | 'cancelled', answer: string, error?: string) => {
    if (!input.subagent) return;
    const facts = { status, answer, turns: state.turn, toolCalls: state.toolCallCount, tokens: state.tokens, durationSeconds: (Date.now() - state.startedAtMs) / 1000 };
    await reportToParent(input.subagent, buildReport(input, input.subagent, { ...facts, ...(error ? { error } : {}) }));
  };

  const finish = async (result: SessionResult): Promise<SessionResult> => {
    state.result = result;
    watches.cancelAll();
    // Children still running when a session stops at its turn or time limit would be orphans.
    if (subagents.outstanding) await subagents.cancelAll(`the parent session ended (${result.status})`);
    await destroyEnvironment();
    await activities.finishSession({ sessionId: input.sessionId, status: result.status, answer: result.answer });
    const outcome: SearchAttributeUpdatePair[] = [
      { key: HermesStopReason, value: result.status },
      { key: HermesToolCalls, value: state.toolCallCount },
    ];
    if (oneUpsert) {
      setStatus('completed', outcome);
    } else {
      setStatus('completed');
      upsertSearchAttributes(outcome);
    }
    setCurrentDetails(`**${result.status}** after ${result.turns} turns and ${result.toolCalls} tool calls`);
    await report(result.status, result.answer, result.reason);
    await condition(allHandlersFinished);
    // A sub-agent's result is copied into its parent's history: its answer went by the store instead.
    return input.subagent && result.answer.length > SUBAGENT_RESULT_ANSWER_CHARS
      ? { ...result, answer: `${result.answer.slice(0, SUBAGENT_RESULT_ANSWER_CHARS)} [... the whole answer is in the session store]` }
      : result;
  };

  /** todo and delegate_task change session state: the workflow runs them itself and stores their result. */
  const runInWorkflow = async (call: ToolCallPlan, seq: number, workflowCall: NonNullable<ToolCallPlan['workflowCall']>) => {
    state.toolStarted(call, Date.now());
    const content =
      'errorResult' in workflowCall
        ? workflowCall.errorResult
        : call.name === 'todo'
          ? todos.apply(workflowCall.arguments)
          : call.name === 'delegate_task'
            ? subagents.dispatch(workflowCall.arguments, state.environment)
            : JSON.stringify({ error: `Unknown tool: ${call.name}` });
    await activities.appendToolResult({ sessionId: input.sessionId, seq, toolCallId: call.id, name: call.name, content });
    state.toolFinished(call, { seq, ok: !content.startsWith('{"error"'), preview: content.slice(0, 200), resultChars: content.length }, Date.now());
  };

  const runCall = async (call: ToolCallPlan, seq: number, assistantSeq: number, callGate: CallGate | undefined, assessedCwd: string, parentToolCallId?: string) => {
    if (historyFull()) {
      // A question already asked is answered (or times out) first, so none is left pending for a
      // call that never runs; a denial is reported as one, which costs no more.
      const decided = callGate && callGate !== GATED_IN_TOOL ? await callGate : undefined;
      if (!decided || decided.approved) return runInWorkflow(call, seq, { errorResult: HISTORY_FULL_RESULT });
    }
    if (call.workflowCall) return runInWorkflow(call, seq, call.workflowCall);
    const gatedInTool = callGate === GATED_IN_TOOL;
    let gate = callGate && !gatedInTool ? await callGate : undefined;
    // An earlier call of the turn changed directory: relative paths now lead elsewhere, so judge again.
    if (gate?.approved && state.environment.cwd !== assessedCwd && patched(GATE_EVERY_TOOL_PATCH)) {
      gate = await (await approvals.prepare([call], assistantSeq)).get(call.id);
    }
    state.toolStarted(call, Date.now());
    let outcome: ToolOutcome;
    const execute = (extra: Partial<ExecuteToolInput> = {}) =>
      activities.executeTool.executeWithOptions({ ...(extra.innerCalls ? activities.codeOptions : activities.toolOptions), summary: call.summary }, [
        { sessionId: input.sessionId, seq, assistantSeq, toolCallId: call.id, name: call.name, environment: state.environment, ...(gate ? { gate } : {}), ...extra },
      ]);
    try {
      if (call.mcp) {
        const options = { ...activities.toolOptions, summary: call.summary };
        const where = { sessionId: input.sessionId, seq, assistantSeq, toolCallId: call.id, name: call.name, ...(gate ? { gate } : {}) };
        const mcpOutcome = await activities.callMcpTool.executeWithOptions(mcpCallOptions(options, call.mcp, limits.toolTimeoutSeconds), [
          { ...where, target: call.mcp, environment: state.environment },
        ]);
        if (mcpOutcome.toolsChanged) mcp.markStale();
        outcome = mcpOutcome;
      } else {
        // An execute_code script's own tool calls come back to the workflow while it runs (code-calls.ts).
        outcome =
          call.name === 'execute_code' && !parentToolCallId
            ? await codeCalls.serve(call.id, (innerCalls) => execute({ innerCalls }))
            : await execute({ ...(parentToolCallId ? { parentToolCallId } : {}), ...(gatedInTool ? { gatePolicy: approvals.policy() } : {}) });
        if (outcome.needsGate) {
          // Nothing ran: the gate decides (and may ask), then the call goes again with its decision.
          gate = await approvals.gate(call, outcome.needsGate);
          outcome = await execute();
        }
      }
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

  // A script's call is gated and run like the model's own, nested under its execute_code call.
  const codeCalls = new CodeCalls(
    (count) => state.reserveSeqs(count),
    async (call, requestSeq, parentCallId) => {
      const gate = gateInTools ? GATED_IN_TOOL : (await approvals.prepare([call], requestSeq)).get(call.id);
      await runCall(call, requestSeq + 1, requestSeq, gate, state.environment.cwd, parentCallId);
    },
  );

  const anythingToDeliver = () => watches.hasNotifications || subagents.hasReports;
  /** Tells the model, as a user message, about background processes that ended and sub-agents that reported. */
  const deliverNotifications = async () => {
    const notifications = watches.take();
    if (notifications.length) {
      await activities.appendSessionMessage({ sessionId: input.sessionId, seq: state.reserveSeqs(1), role: 'user', content: notifications.join('\n\n') });
    }
    // Each sub-agent's result is a message of its own, as in the original.
    for (const report of subagents.takeReports()) {
      await activities.appendSubagentReport({ sessionId: input.sessionId, seq: state.reserveSeqs(1), report, maxSummaryChars: delegation.maxSummaryChars });
    }
  };

  const runTools = async (turn: ModelTurn) => {
    const firstSeq = state.reserveSeqs(turn.toolCalls.length);
    const seqOf = new Map(turn.toolCalls.map((call, index) => [call.id, firstSeq + index]));
    // Every call whose tool declares what the gate must see is assessed, all at once, before any runs.
    const assessedCwd = state.environment.cwd;
    const gatesEveryTool = patched(GATE_EVERY_TOOL_PATCH);
    const legacyGated = (call: ToolCallPlan) => call.name === 'terminal';
    const gated = turn.toolCalls.filter((call) => (gatesEveryTool ? call.needsAssessment === true : legacyGated(call)));
    const batches = planToolBatches(turn.toolCalls);
    const bounded = batches.some((batch) => batch.concurrent) && patched(BOUNDED_PARALLEL_CALLS_PATCH);
    const maxParallel = bounded ? limits.maxParallelToolCalls : Infinity;
    // Where no approval must wait for another call's assessment, each call's own activity assesses it.
    const assessableInTool = (call: ToolCallPlan) => !call.mcp && call.name !== 'execute_code' && !call.workflowCall;
    const inTool = new Set(gateInTools ? gatedInTheirActivities(batches, gated, maxParallel).filter(assessableInTool) : []);
    const gatedHere = gated.filter((call) => !inTool.has(call));
    const gates: Map<string, CallGate> = gatedHere.length ? await approvals.prepare(gatedHere, turn.seq) : new Map<string, CallGate>();
    for (const call of inTool) gates.set(call.id, GATED_IN_TOOL);
    const slots = new CallSlots(maxParallel);
    const refused = gatedHere.length > 1 && patched(REFUSALS_TOGETHER_PATCH) ? new RefusedCalls(gates) : undefined;
    const run = (call: ToolCallPlan) => runCall(call, seqOf.get(call.id) as number, turn.seq, gates.get(call.id), assessedCwd);
    const decided = async (call: ToolCallPlan) => {
      const gate = gates.get(call.id);
      if (gate && gate !== GATED_IN_TOOL) await gate;
    };
    // A call waiting for a person holds no slot: it takes one once decided.
    const decidedThenRun = async (call: ToolCallPlan) => {
      await decided(call);
      return slots.run(() => run(call));
    };
    // Refusals written by one activity; should it fail even after retries, each call goes alone, as any call would.
    const writeRefusals = async (calls: ToolCallPlan[], refusals: RefusedCalls) => {
      const startedMs = Date.now();
      let outcomes: ToolOutcome[];
      try {
        // The Web UI names each call, as it names a tool activity.
        const summary = `refused: ${calls.map((call) => call.summary).join('; ')}`.slice(0, REFUSALS_SUMMARY_CHARS);
        outcomes = await activities.storeRefusals.executeWithOptions({ ...activities.refusalOptions, summary }, [
          calls.map((call) => ({ sessionId: input.sessionId, seq: seqOf.get(call.id) as number, assistantSeq: turn.seq, toolCallId: call.id, name: call.name, environment: state.environment, gate: refusals.refusalOf(call) })),
        ]);
      } catch (error) {
        if (isCancellation(error)) throw error;
        for (const call of calls) await run(call);
        return;
      }
      calls.forEach((call, index) => {
        state.toolStarted(call, startedMs);
        state.toolFinished(call, outcomes[index] as ToolOutcome, Date.now());
      });
    };
    for (let index = 0; index < batches.length; index++) {
      const batch = batches[index] as ToolBatch;
      if (batch.concurrent) await Promise.all(batch.calls.map(bounded ? decidedThenRun : run));
      else if (!refused) for (const call of batch.calls) await run(call);
      else {
        await Promise.all(batch.calls.map(decided));
        // This call, and those run alone after it that the gate has refused by now too, only write their refusals.
        const together = refused.refusedRun(batches, index);
        if (!together.length) for (const call of batch.calls) await run(call);
        else {
          await writeRefusals(together, refused);
          index += together.length - 1;
        }
      }
    }
    toolCount.afterTurn();
  };

  const runLoop = async (): Promise<SessionResult> => {
    if (!input.resume) {
      // The store records the folder the session is bounded to, not where its shell starts.
      const workspace = recordedWorkspace(input.environment);
      const prepared = await activities.prepareSession({
        sessionId: input.sessionId,
        workflowId: workflowInfo().workflowId,
        task: input.task,
        model: input.model,
        cwd: input.environment.cwd,
        ...(workspace !== undefined ? { workspace } : {}),
        backend: input.environment.backend,
        toolsets: input.toolsets,
        disabledToolsets: input.disabledToolsets,
        parentSessionId: input.parentSessionId,
        ...(input.subagent ? { subagent: { goal: input.subagent.goal, context: input.subagent.context, role: input.subagent.role } } : {}),
      });
      state.nextSeq = prepared.nextSeq;
      approvals.extendAllowlist(prepared.allowlist);
      if (prepared.mcpServers) await mcp.list();
    }
    if (input.environment.backend !== 'local' && !state.environment.id) {
      showDetails(`Starting the ${input.environment.backend} environment`);
      state.environment = await activities.startEnvironment({ handle: { ...state.environment, sessionId: input.sessionId } });
    }

    let turnsThisRun = 0;
    while (state.turn < input.maxTurns) {
      state.turn += 1;
      turnsThisRun += 1;
      // Checked before awaiting: each promise a workflow makes costs the SDK a stack capture, and a
      // quick turn has nothing to deliver or refresh.
      if (anythingToDeliver()) await deliverNotifications();
      if (mcp.stale) await mcp.list();
      showDetails(`Turn ${state.turn}/${input.maxTurns}: waiting for the model (${input.model})${mcp.failuresLine()}`);
      const turn = await activities.callModel.executeWithOptions({ ...activities.modelOptions, summary: `${input.model}, turn ${state.turn}` }, [
        { sessionId: input.sessionId, seq: state.reserveSeqs(1), model: input.model, baseUrl: input.baseUrl, ...(input.delegation ? { schemaContext: { delegation } } : {}), ...mcp.callModelInput() },
      ]);
      state.addTokens(turn.usage);
      state.recordAssistant(turn.seq, turn.content ?? turn.toolCalls.map((call) => call.summary).join('; '));
      if (!turn.toolCalls.length) {
        if ((subagents.outstanding || subagents.hasReports) && state.turn < input.maxTurns) {
          // Sub-agents still work (or reported while the model spoke): let the model read every result.
          if (!subagents.hasReports) showDetails(`Waiting for ${subagents.outstanding} sub-agent(s) to report`);
          await subagents.waitForNews((workflowIds) => activities.closedWorkflows({ workflowIds }), limits.subagentCheckSeconds);
          // Reports of one batch come close together: gather those of the next moment into the same turn.
          if (subagents.hasReports && subagents.outstanding) await condition(() => subagents.outstanding === 0, REPORT_SETTLE);
          if (subagents.hasReports) continue;
        }
        // A watched process ended while the model gave this answer: it is watched no more, but the
        // model asked to hear of it.
        if (watches.hasNotifications && !watches.outstanding && state.turn < input.maxTurns && patched(LATE_NOTIFICATIONS_PATCH)) continue;
        if (watches.outstanding && state.turn < input.maxTurns) {
          // The model asked to hear when these end: wait for one, then let it react.
          showDetails(`Waiting for ${watches.outstanding} background process(es) the model asked to be told about`);
          await watches.waitForNews();
          if (watches.hasNotifications) continue;
        }
        return await finish({ status: 'completed', answer: turn.content ?? '', turns: state.turn, toolCalls: state.toolCallCount });
      }
      // The names are the model's (an unknown tool's too): quoted, never read as the runtime's markup.
      showDetails(`Turn ${state.turn}/${input.maxTurns}: running ${turn.toolCalls.map((call) => markdownCode(call.name)).join(', ')}`);
      await runTools(turn);

      if (state.turn < input.maxTurns && (workflowInfo().continueAsNewSuggested || turnsThisRun >= limits.turnsPerRun)) {
        await subagents.settled();
        await condition(allHandlersFinished);
        // The next run starts from this run's search attributes: they must hold the count.
        toolCount.flush();
        return await continueAsNew<typeof agentSession>({
          ...input,
          resume: { ...state.carryOver(), ...watches.carryOver(), approvals: approvals.carryOver(), todos: todos.snapshot(), subagents: subagents.carryOver(), ...mcp.carryOver() },
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
  };

  // A root run that no trusted key started runs nothing (start-signature.ts); a child or continued
  // run, nothing unless a session on this task queue is its parent or previous run (session-lineage.ts):
  // any workflow, on any worker, can start a child or continue as new here.
  const info = workflowInfo();
  const lineage = info.parent
    ? { kind: 'parent' as const, workflowId: info.parent.workflowId, runId: info.parent.runId }
    : info.continuedFromExecutionRunId
      ? { kind: 'continued' as const, workflowId: info.workflowId, runId: info.continuedFromExecutionRunId }
      : undefined;
  if (lineage ? patched(VERIFIED_LINEAGE_PATCH) : patched(SIGNED_START_PATCH)) {
    const where = { workflowId: info.workflowId, input, runStartedAt: info.runStartTime.toISOString() };
    const verdict = await activities.verifySessionStart(lineage ? { ...where, lineage, taskQueue: info.taskQueue } : where);
    if (!verdict.ok) {
      const howToStart = lineage
        ? 'sub-agents and continued runs come only from sessions on this task queue'
        : '`hermes-temporal run` signs a session with the approver key of its hermes home; for workers to run the sessions ' +
          'of another machine, add its key to their approvals.approvers (`hermes-temporal approver show` there prints the line)';
      const message = `Refused to run this session: ${verdict.reason}. ${howToStart}`;
      setStatus('failed');
      setCurrentDetails(`**refused**: ${markdownCode(message)}`);
      throw ApplicationFailure.create({ message, type: START_REFUSED, nonRetryable: true });
    }
  }

  // A sub-agent with a time limit runs its loop in a scope the deadline cancels (commands are killed).
  const deadline = input.subagent?.timeoutSeconds ? startDeadline(input.subagent.timeoutSeconds) : undefined;
  try {
    return await (deadline ? deadline.scope.run(runLoop) : runLoop());
  } catch (error) {
    if (error instanceof ContinueAsNew) throw error;
    watches.cancelAll();
    if (isCancellation(error) && deadline?.expired) {
      const limit = input.subagent?.timeoutSeconds ?? 0;
      return await CancellationScope.nonCancellable(() =>
        finish({ status: 'timed_out', answer: '', turns: state.turn, toolCalls: state.toolCallCount, reason: `Stopped at the sub-agent time limit of ${limit} s (delegation.child_timeout_seconds)` }),
      );
    }
    if (isCancellation(error)) {
      await CancellationScope.nonCancellable(async () => {
        // Cancelling a session cancels its sub-agents (and so their commands) too.
        if (subagents.outstanding) await subagents.cancelAll('the parent session was cancelled');
        setStatus('cancelled');
        await activities.finishSession({ sessionId: input.sessionId, status: 'cancelled' });
        await report('cancelled', '', 'The sub-agent was cancelled');
      });
      await destroyEnvironment();
      throw error;
    }
    const message = describeFailure(error);
    state.lastError = message;
    setStatus('failed');
    setCurrentDetails(`**failed**: ${markdownCode(message)}`);
    if (subagents.outstanding) await subagents.cancelAll('the parent session failed');
    await activities.finishSession({ sessionId: input.sessionId, status: 'failed', error: message }).catch(() => undefined);
    await report('failed', '', message);
    await destroyEnvironment();
    throw ApplicationFailure.create({ message, type: SESSION_FAILED, nonRetryable: true, cause: error as Error });
  } finally {
    deadline?.stop();
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
