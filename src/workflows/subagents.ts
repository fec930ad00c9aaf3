// A session's sub-agents: each delegated task is a child workflow running agentSession. Children
// start at once up to delegation.max_concurrent_children, the rest queue (the bound lives here, in
// workflow state, never in the worker process). A child reports by signal to its parent's
// workflow id, so the report reaches the parent's latest run after continue-as-new.
import {
  CancellationScope,
  ParentClosePolicy,
  condition,
  getExternalWorkflowHandle,
  log,
  patched,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import { markdownCodeWithin, utf8Length } from '../approval-signals/ui-markdown';
import { HermesParentSession, HermesRootSession, HermesStatus, HermesModel, HermesToolCalls } from '../temporal/search-attributes';
import { parseDelegateRequest, dispatchedResult, type ChildTask } from './delegate-request';
import { recordedWorkspace, withRecordedWorkspace } from './recorded-workspace';
import { childApprovals, type ChildView, type DelegationSettings, type DescendantApprovals, type SubagentInfo, type SubagentReport } from './delegation-types';
import type { SessionInput, SubagentsCarryOver } from './session-types';

export type ChildEvent =
  | { type: 'child_started'; child: ChildView }
  | { type: 'child_finished'; child: ChildView; report: SubagentReport };

/** Finished children kept in the status view (the running ones are always kept). */
const FINISHED_CHILDREN_SHOWN = 100;
/** How soon a session asks the server whether a child that claimed to finish, with no handle here, has closed. */
const CLAIM_FIRST_CHECK_MS = 1000;
/** The most the Temporal UI's summary of a workflow holds (bytes of UTF-8). */
const SUMMARY_BYTES = 200;
/** Descendants whose waiting approvals a root shows at once (a tree has at most a few dozen running). */
const DESCENDANT_APPROVALS_SHOWN = 50;
/**
 * Queued children wait with their whole input, carried into each continue-as-new, whose input
 * Temporal limits to 2 MB: at most 3 bytes a JSON character, this keeps them under 600 KB.
 */
export const MAX_QUEUED_INPUT_CHARS = 200_000;
/** Histories recorded before the queue was bounded replay without the bound. */
const BOUNDED_QUEUE_PATCH = 'bounded-delegation-queue';
/** Histories recorded before a stopping session waited for its children's starts replay without the wait. */
const CANCEL_STARTING_CHILDREN_PATCH = 'cancel-children-being-started';

export class Subagents {
  private nextChild: number;
  private readonly children: ChildView[];
  private readonly queued: SessionInput[];
  private readonly undelivered: SubagentReport[];
  private readonly approvals = new Map<string, DescendantApprovals>();
  /** Reports signalled by running children whose workflows have not closed yet (the latest each). */
  private readonly claimed = new Map<string, SubagentReport>();
  /** Children started by this run: their close reaches it through their handles. */
  private readonly watched = new Set<string>();
  private starting = 0;

  constructor(
    private readonly input: SessionInput,
    private readonly settings: DelegationSettings,
    carry: SubagentsCarryOver | undefined,
    private readonly onEvent: (event: ChildEvent) => void,
    /** Whether a signalled report waits for its child's close (histories recorded before replay without). */
    private readonly reportsWaitForClose = true,
  ) {
    this.nextChild = carry?.nextChild ?? 0;
    this.children = carry?.children ?? [];
    this.queued = carry?.queued ?? [];
    this.undelivered = carry?.undelivered ?? [];
    for (const entry of carry?.descendantApprovals ?? []) this.approvals.set(entry.sessionId, entry);
    for (const report of carry?.claimed ?? []) this.claimed.set(report.sessionId, report);
  }

  get depth(): number {
    return this.input.subagent?.depth ?? 0;
  }

  /** Children still queued or running: the session waits for them before it ends. */
  get outstanding(): number {
    return this.children.filter((child) => child.status === 'queued' || child.status === 'running').length;
  }

  get hasReports(): boolean {
    return this.undelivered.length > 0;
  }

  /** Handles one delegate_task call: starts (or queues) its children and returns the tool result. */
  dispatch(args: Record<string, unknown>, environment: SessionInput['environment']): string {
    const request = parseDelegateRequest(args, this.settings, this.depth);
    if (!request.ok) return JSON.stringify({ error: request.error });
    const first = this.nextChild;
    const delegationId = `${this.input.sessionId}-d${first}`;
    const sessionIds = request.tasks.map((_task, index) => `${this.input.sessionId}-sa${first + index}`);
    const inputs = request.tasks.map((task, index) => this.childInput(sessionIds[index] as string, this.subagentInfo(task, index, request.tasks.length), environment));
    const waiting = this.waitingAfter(inputs);
    if (waiting.chars > MAX_QUEUED_INPUT_CHARS && patched(BOUNDED_QUEUE_PATCH)) {
      return JSON.stringify({
        error:
          `Not delegated: ${waiting.count} sub-agent(s) would wait for a free slot, with ${waiting.chars} characters of goals, context and settings; ` +
          `at most ${MAX_QUEUED_INPUT_CHARS} can wait. Wait for the running sub-agents' results, or delegate fewer or shorter tasks.`,
      });
    }
    this.nextChild += request.tasks.length;
    inputs.forEach((childInput, index) => {
      const sessionId = childInput.sessionId;
      const subagent = childInput.subagent as SubagentInfo;
      this.queued.push(childInput);
      this.children.push({
        sessionId,
        workflowId: childWorkflowId(sessionId),
        goal: subagent.goal.slice(0, 200),
        role: subagent.role,
        depth: subagent.depth,
        taskIndex: index,
        taskCount: request.tasks.length,
        status: 'queued',
      });
    });
    this.pump();
    const stillQueued = sessionIds.filter((sessionId) => this.queued.some((queued) => queued.sessionId === sessionId)).length;
    return dispatchedResult(delegationId, request.tasks, sessionIds, stillQueued);
  }

  /** The children that would still wait once `inputs` joined the queue and free slots took its head. */
  private waitingAfter(inputs: readonly SessionInput[]): { count: number; chars: number } {
    const queue = [...this.queued, ...inputs];
    const waiting = queue.slice(Math.max(0, this.settings.maxConcurrentChildren - this.running()));
    return { count: waiting.length, chars: waiting.length ? JSON.stringify(waiting).length : 0 };
  }

  private subagentInfo(task: ChildTask, index: number, taskCount: number): SubagentInfo {
    return {
      goal: task.goal,
      ...(task.context ? { context: task.context } : {}),
      role: task.role,
      depth: this.depth + 1,
      taskIndex: index,
      taskCount,
      parentWorkflowId: workflowInfo().workflowId,
      rootSessionId: this.input.subagent?.rootSessionId ?? this.input.sessionId,
      rootWorkflowId: this.input.subagent?.rootWorkflowId ?? workflowInfo().workflowId,
      ...(this.settings.childTimeoutSeconds > 0 ? { timeoutSeconds: Math.max(30, this.settings.childTimeoutSeconds) } : {}),
    };
  }

  /**
   * A report signalled to this session. Anyone who reaches the server can send one, for any child:
   * it is believed only once the child's workflow has closed (its handle, or the server, says so),
   * or a forged one would end a running child here (no longer waited for, counted or cancelled).
   */
  claim(report: SubagentReport): void {
    if (!this.reportsWaitForClose) return this.receive(report);
    const child = this.children.find((candidate) => candidate.sessionId === report.sessionId);
    if (child?.status !== 'running') return;
    this.claimed.set(report.sessionId, report);
  }

  /** Running children started by an earlier run that claim to have finished: the server is asked whether they closed. */
  private get unconfirmedClaims(): string[] {
    return this.children.filter((child) => child.status === 'running' && this.claimed.has(child.sessionId) && !this.watched.has(child.sessionId)).map((child) => child.workflowId);
  }

  /** A child's workflow closed: its own report if it sent one, else `otherwise`. */
  private closed(sessionId: string, otherwise: () => SubagentReport): void {
    const report = this.claimed.get(sessionId) ?? otherwise();
    this.claimed.delete(sessionId);
    this.receive(report);
  }

  /** A child's report arrived (by signal, or from its closing when it could not send one). */
  receive(report: SubagentReport): void {
    const child = this.children.find((candidate) => candidate.sessionId === report.sessionId);
    // Only children of this session that are still running can report, and only once.
    if (!child || (child.status !== 'running' && child.status !== 'queued')) return;
    this.claimed.delete(report.sessionId);
    child.status = report.status;
    this.approvals.delete(report.sessionId);
    this.undelivered.push(report);
    this.onEvent({ type: 'child_finished', child: { ...child }, report });
    this.trimFinished();
    this.pump();
  }

  /** Reports not yet shown to the model, oldest first. */
  takeReports(): SubagentReport[] {
    return this.undelivered.splice(0);
  }

  /**
   * Waits until a child reports (or none is outstanding). Now and then it asks the server whether a
   * running child closed without reporting: terminated by an operator after this session continued
   * as new, when no child handle is left to say so.
   */
  async waitForNews(closedWorkflows: (workflowIds: string[]) => Promise<{ workflowId: string; status: string }[]>, checkEverySeconds: number): Promise<void> {
    // A claimed report of a child without a handle is checked soon after, then less and less often.
    let claimCheckMs = CLAIM_FIRST_CHECK_MS;
    const news = () => this.undelivered.length > 0 || this.outstanding === 0;
    for (;;) {
      const claims = this.unconfirmedClaims.length > 0;
      // Woken early by news, or by a first claim (then checked soon, not at the next long check).
      const woken = await condition(() => news() || (!claims && this.unconfirmedClaims.length > 0), claims ? claimCheckMs : checkEverySeconds * 1000);
      if (news()) return;
      if (woken) continue;
      if (claims) claimCheckMs = Math.min(claimCheckMs * 2, checkEverySeconds * 1000);
      const running = this.children.filter((child) => child.status === 'running');
      if (!running.length) continue;
      for (const closed of await closedWorkflows(running.map((child) => child.workflowId))) {
        const child = running.find((candidate) => candidate.workflowId === closed.workflowId);
        if (child) this.closed(child.sessionId, () => silentEnd(child, closed.status, this.settings.model ?? this.input.model));
      }
    }
  }

  /** Waits until no child is between "dequeued" and "started", so a carry-over misses none. */
  async settled(): Promise<void> {
    await condition(() => this.starting === 0);
  }

  /**
   * Notes what a descendant waits for; false when the entry cannot be one of this tree's (its
   * session id does not extend this session's, as every descendant's does) or too many are shown.
   */
  noteDescendantApprovals(entry: DescendantApprovals): boolean {
    if (!entry.sessionId.startsWith(`${this.input.sessionId}-sa`)) return false;
    if (entry.count === 0) return this.approvals.delete(entry.sessionId);
    if (!this.approvals.has(entry.sessionId) && this.approvals.size >= DESCENDANT_APPROVALS_SHOWN) return false;
    this.approvals.set(entry.sessionId, entry);
    return true;
  }

  descendantApprovals(): DescendantApprovals[] {
    return [...this.approvals.values()];
  }

  views(): ChildView[] {
    return this.children.map((child) => ({ ...child, ...(this.approvals.has(child.sessionId) ? { pendingApprovals: this.approvals.get(child.sessionId)?.count } : {}) }));
  }

  /** Cancels every running child (their commands are killed) and drops the queued ones. */
  async cancelAll(reason: string): Promise<void> {
    await CancellationScope.nonCancellable(async () => {
      // A child being started is no longer in the queue but still shows 'queued': marked cancelled
      // here, it was never cancelled and ran on (ParentClosePolicy.ABANDON) after its parent stopped.
      const waiting = new Set(this.queued.map((queued) => queued.sessionId));
      const startsInFlight = this.starting > 0 && patched(CANCEL_STARTING_CHILDREN_PATCH);
      for (const child of this.children) {
        if (child.status === 'queued' && (waiting.has(child.sessionId) || !startsInFlight)) child.status = 'cancelled';
      }
      this.queued.splice(0);
      // Its start resolves (running, or failed) before the running ones are cancelled.
      if (startsInFlight) await condition(() => this.starting === 0);
      const running = this.children.filter((child) => child.status === 'running');
      await Promise.all(
        running.map((child) =>
          getExternalWorkflowHandle(child.workflowId)
            .cancel()
            .catch((error: unknown) => log.warn('Could not cancel a sub-agent', { child: child.sessionId, reason, error: String(error) })),
        ),
      );
      for (const child of running) {
        child.status = 'cancelled';
        this.claimed.delete(child.sessionId);
      }
    });
  }

  carryOver(): SubagentsCarryOver {
    return {
      nextChild: this.nextChild,
      children: this.children.map((child) => ({ ...child })),
      queued: [...this.queued],
      undelivered: [...this.undelivered],
      descendantApprovals: this.descendantApprovals(),
      ...(this.claimed.size ? { claimed: [...this.claimed.values()] } : {}),
    };
  }

  /** Children running or being started. */
  private running(): number {
    return this.children.filter((child) => child.status === 'running').length + this.starting;
  }

  /** Starts queued children while fewer than max_concurrent_children run. */
  private pump(): void {
    while (this.queued.length && this.running() < this.settings.maxConcurrentChildren) {
      const childInput = this.queued.shift() as SessionInput;
      this.starting += 1;
      void this.start(childInput).finally(() => {
        this.starting -= 1;
      });
    }
  }

  private async start(childInput: SessionInput): Promise<void> {
    const child = this.children.find((candidate) => candidate.sessionId === childInput.sessionId);
    if (!child) return;
    const subagent = childInput.subagent as SubagentInfo;
    try {
      // Not cancellable from here: cancelling a parent cancels its children explicitly (cancelAll),
      // and ABANDON keeps them running when the parent continues as new.
      const handle = await CancellationScope.nonCancellable(() =>
        startChild('agentSession', {
          workflowId: child.workflowId,
          args: [childInput],
          parentClosePolicy: ParentClosePolicy.ABANDON,
          staticSummary: subagentSummary(subagent),
          memo: { task: subagent.goal.slice(0, 2000) },
          typedSearchAttributes: [
            { key: HermesStatus, value: 'running' },
            { key: HermesModel, value: childInput.model },
            { key: HermesToolCalls, value: 0 },
            { key: HermesParentSession, value: this.input.sessionId },
            { key: HermesRootSession, value: subagent.rootSessionId },
          ],
        }),
      );
      if (child.status === 'queued') child.status = 'running';
      this.watched.add(child.sessionId);
      this.onEvent({ type: 'child_started', child: { ...child } });
      // The child's close delivers the report it signalled; one that closes without reporting
      // (terminated, or failed before it could) still ends here.
      handle.result().then(
        () => this.closed(child.sessionId, () => closedWithoutReport(childInput, 'completed', 'The sub-agent ended without sending its report')),
        (error: unknown) => this.closed(child.sessionId, () => closedWithoutReport(childInput, isCancelled(error) ? 'cancelled' : 'failed', describe(error))),
      );
    } catch (error) {
      this.receive(closedWithoutReport(childInput, 'failed', `The sub-agent could not be started: ${describe(error)}`));
    }
  }

  private childInput(sessionId: string, subagent: SubagentInfo, environment: SessionInput['environment']): SessionInput {
    const parent = this.input;
    const { resume: _resume, ...inherited } = parent;
    return {
      ...inherited,
      sessionId,
      task: subagent.goal,
      model: this.settings.model ?? parent.model,
      ...(this.settings.baseUrl ?? parent.baseUrl ? { baseUrl: this.settings.baseUrl ?? parent.baseUrl } : {}),
      // Its own terminal session, starting where the parent is now; a container backend gets its own container.
      // A local child writes only its parent's workspace: the parent's cwd may have left it (`cd ..`).
      environment:
        environment.backend === 'local'
          ? withRecordedWorkspace({ backend: 'local', cwd: environment.cwd, sessionId }, recordedWorkspace(environment) ?? parent.environment.cwd)
          : { backend: environment.backend, cwd: parent.environment.cwd, sessionId },
      maxTurns: this.settings.maxIterations,
      parentSessionId: parent.sessionId,
      approvals: childApprovals(parent, this.settings),
      delegation: this.settings,
      subagent,
    };
  }

  private trimFinished(): void {
    const finished = this.children.filter((child) => child.status !== 'running' && child.status !== 'queued');
    for (const old of finished.slice(0, Math.max(0, finished.length - FINISHED_CHILDREN_SHOWN))) {
      this.children.splice(this.children.indexOf(old), 1);
    }
  }
}

export function childWorkflowId(sessionId: string): string {
  return `hermes-session-${sessionId}`;
}

/** The report of a child that ended without sending one: no answer, only how it ended. */
function reportWithoutAnswer(child: Pick<ChildView, 'sessionId' | 'taskIndex' | 'taskCount' | 'goal'>, model: string, status: SubagentReport['status'], error: string): SubagentReport {
  const { sessionId, taskIndex, taskCount, goal } = child;
  const nothing = { preview: '', answerChars: 0, turns: 0, toolCalls: 0, tokens: { input: 0, output: 0 }, durationSeconds: 0 };
  return { sessionId, taskIndex, taskCount, goal, status, ...nothing, model, error };
}

function closedWithoutReport(childInput: SessionInput, status: SubagentReport['status'], error: string): SubagentReport {
  const subagent = childInput.subagent as SubagentInfo;
  return reportWithoutAnswer({ sessionId: childInput.sessionId, ...subagent }, childInput.model, status, error);
}

/** The report for a child whose workflow closed without reporting (`status` as the server says it). */
function silentEnd(child: ChildView, status: string, model: string): SubagentReport {
  const ended = status === 'canceled' ? 'cancelled' : status === 'timed_out' ? 'timed_out' : 'failed';
  return reportWithoutAnswer(child, model, ended, `The sub-agent's workflow ended (${status}) without reporting`);
}

function isCancelled(error: unknown): boolean {
  const cause = (error as { cause?: { name?: string } } | undefined)?.cause;
  return cause?.name === 'CancelledFailure' || (error as { name?: string } | undefined)?.name === 'CancelledFailure';
}

function describe(error: unknown): string {
  const cause = (error as { cause?: { message?: string } } | undefined)?.cause;
  return cause?.message ?? (error instanceof Error ? error.message : String(error));
}

/** The UI's summary line: at most its 200 bytes, and the goal (the model's text) quoted, not read as Markdown. */
function subagentSummary(subagent: SubagentInfo): string {
  const head = `Sub-agent ${subagent.taskIndex + 1}/${subagent.taskCount} (${subagent.role}): `;
  return head + markdownCodeWithin(subagent.goal.slice(0, 400), SUMMARY_BYTES - utf8Length(head));
}
