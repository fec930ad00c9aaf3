// The session's approval gate: before a turn's calls run, each whose tool declares what the gate
// must see is assessed (a recorded activity), the policy decides, and calls that need a human
// wait durably for a decision (signal or update) or for the timeout, which denies. An approval
// carries what it was given for: the files the command runs and the paths that were judged.
// Where no approval must wait for another call's assessment (one gated call, or gated calls that
// run side by side), each call's own tool activity assesses it instead, runs it at once when the
// policy needs nobody's approval, and otherwise hands the assessment back to `gate`.
import { CancellationScope, condition, log, sleep, uuid4 } from '@temporalio/workflow';
import { approvedNote, approverKind, deniedByUser, timedOut } from '../approval-signals/approval-messages';
import type {
  ApprovalChoice,
  ApprovalDecision,
  ApprovalGateResult,
  CommandAssessment,
  PendingApproval,
  SessionApprovalSettings,
} from '../approval-signals/approval-types';
import type { ApprovalAuditEntry, DecideApprovalResult } from '../approval-signals/definitions';
import { clearedCall, type GatePolicy } from '../approval-signals/cleared-call';
import { decideCommand } from '../approval-signals/policy';
import type { ToolCallPlan } from './session-types';

export interface ApprovalGateDeps {
  assess(call: ToolCallPlan, assistantSeq: number): Promise<CommandAssessment>;
  /** Several calls of one reply, in order, in few activities (absent in histories recorded before: one activity each). */
  assessAll?(calls: ToolCallPlan[], assistantSeq: number): Promise<CommandAssessment[]>;
  /** Smart review by an auxiliary model. */
  review(command: string, description: string): Promise<'approve' | 'deny' | 'escalate'>;
  /** Adds keys to the permanent allowlist. */
  persist(keys: string[]): Promise<void>;
  /** Tells the outside world (webhook) that an approval is pending. */
  notify(pending: PendingApproval): Promise<void>;
  /** Called whenever the number of pending approvals changes (or what they show). */
  onPendingChange(count: number): void;
  /**
   * Who made a decision for this pending approval (the verified approver), or throws why it is
   * refused (unsigned, unknown key, signature for something else).
   */
  authenticate(decision: ApprovalDecision, pending: PendingApproval): string;
  now(): number;
}

const MAX_AUDIT_ENTRIES = 50;
/** What a refusal record keeps of the approval id and the reason (a signal's text, any size). */
const MAX_REFUSAL_ID_CHARS = 200;
const MAX_REFUSAL_MESSAGE_CHARS = 500;

export interface ApprovalCarryOver {
  sessionApprovals: string[];
  allowlist: string[];
  approvalCounter: number;
}

export interface ApprovalGateOptions {
  /**
   * Approvals raised at the same moment time out on one timer. A reply of two thousand gated calls
   * started two thousand timers, whose firing together overflowed what the server buffers while a
   * workflow task runs (it failed the task). Absent in histories recorded before: a timer each.
   */
  sharedDeadlines?: boolean;
}

interface SharedDeadline {
  expired: boolean;
  /** Approvals still waiting on it. */
  waiting: number;
  scope: CancellationScope;
}

interface Entry extends PendingApproval {
  decision?: ApprovalDecision & { applied: ApprovalChoice };
}

export class ApprovalGate {
  private readonly entries = new Map<string, Entry>();
  private readonly sessionApprovals: Set<string>;
  private readonly allowlist: Set<string>;
  private readonly audit: ApprovalAuditEntry[] = [];
  private counter: number;

  /** Timers by the moment they end, each shared by the approvals raised at the same moment. */
  private readonly deadlines = new Map<number, SharedDeadline>();

  constructor(
    private readonly settings: SessionApprovalSettings,
    carry: ApprovalCarryOver,
    private readonly deps: ApprovalGateDeps,
    private readonly options: ApprovalGateOptions = {},
  ) {
    this.sessionApprovals = new Set(carry.sessionApprovals);
    this.allowlist = new Set(carry.allowlist);
    this.counter = carry.approvalCounter;
  }

  /** Adds the permanent allowlist read at session start. */
  extendAllowlist(keys: readonly string[]): void {
    for (const key of keys) this.allowlist.add(key);
  }

  carryOver(): ApprovalCarryOver {
    return { sessionApprovals: [...this.sessionApprovals], allowlist: [...this.allowlist], approvalCounter: this.counter };
  }

  /** The latest decisions and refusals, oldest first. */
  auditTrail(): ApprovalAuditEntry[] {
    return [...this.audit];
  }

  /** Approvals still waiting for a decision, oldest first. */
  pending(): PendingApproval[] {
    return [...this.entries.values()].filter((entry) => !entry.decision).map(({ decision: _decision, ...entry }) => entry);
  }

  /** How many wait, counted without copying them: it is told on every change, and a turn may raise thousands. */
  private pendingCount(): number {
    let count = 0;
    for (const entry of this.entries.values()) if (!entry.decision) count += 1;
    return count;
  }

  /**
   * Assesses every gated call of a turn at once, so all approvals the turn needs are raised
   * together; each call's promise settles when it may run (or is blocked).
   */
  async prepare(calls: ToolCallPlan[], assistantSeq: number): Promise<Map<string, Promise<ApprovalGateResult>>> {
    const assessments =
      this.deps.assessAll && calls.length > 1 ? await this.deps.assessAll(calls, assistantSeq) : await Promise.all(calls.map((call) => this.deps.assess(call, assistantSeq)));
    const gates = new Map<string, Promise<ApprovalGateResult>>();
    calls.forEach((call, index) => {
      const result = this.gate(call, assessments[index] as CommandAssessment);
      result.catch(() => undefined); // awaited by the call itself; this only keeps it from counting as unhandled
      gates.set(call.id, result);
    });
    return gates;
  }

  /** Throws (rejecting an update before it reaches history) unless the decision can apply. */
  validate(decision: ApprovalDecision): void {
    this.authenticated(decision);
  }

  /** Applies a validated decision under its verified approver; returns what was applied. */
  decide(decision: ApprovalDecision): DecideApprovalResult {
    // Verified again here: validators do not run on replay, and a signal has no validator. (The
    // session remembers a decision that verified, so one checked a moment ago costs no second check.)
    const { entry, decidedBy } = this.authenticated(decision);
    let applied = decision.choice;
    if (applied === 'always' && !entry.allowAlways) applied = 'session';
    if (entry.smartDenied && (applied === 'session' || applied === 'always')) applied = 'once';
    const { decidedBy: _claimed, signature: _signature, ...rest } = decision;
    entry.decision = { ...rest, decidedBy, applied };
    delete entry.refusedDecision;
    this.record({ approvalId: entry.approvalId, outcome: 'decided', applied, decidedBy });
    log.info('Approval decided', { approvalId: entry.approvalId, applied, decidedBy });
    if (applied === 'session' || applied === 'always') this.approveForSession(entry.keys);
    this.deps.onPendingChange(this.pendingCount());
    return { approvalId: entry.approvalId, choice: decision.choice, applied, decidedBy };
  }

  /**
   * A decision that arrived as a signal, which cannot be answered: a refused one is logged and
   * shown on the pending approval (queries, the UI's details line) while the command keeps waiting.
   */
  decideFromSignal(decision: ApprovalDecision): void {
    let authenticated = false;
    try {
      this.authenticated(decision);
      authenticated = true;
    } catch (error) {
      this.refuse(decision.approvalId, (error as Error).message);
    }
    if (authenticated) this.decide(decision);
  }

  /** Records a decision that could not even be read (a malformed signal). */
  refuse(anyApprovalId: string, anyMessage: string): void {
    // Anyone can signal a refusal's text into the session: what is kept of it is bounded.
    const approvalId = anyApprovalId.slice(0, MAX_REFUSAL_ID_CHARS);
    const message = anyMessage.slice(0, MAX_REFUSAL_MESSAGE_CHARS);
    log.warn('Refused an approval decision', { approvalId, error: message });
    this.record({ approvalId, outcome: 'refused', message });
    const entry = this.entries.get(approvalId);
    if (entry && !entry.decision) {
      entry.refusedDecision = `Refused a decision at ${new Date(this.deps.now()).toISOString()}: ${message}`;
      this.deps.onPendingChange(this.pendingCount());
    }
  }

  private authenticated(decision: ApprovalDecision): { entry: Entry; decidedBy: string } {
    const entry = this.entries.get(decision.approvalId);
    if (!entry) {
      const known = this.pending().map((pending) => pending.approvalId);
      throw new Error(`Unknown approval id '${decision.approvalId}'${known.length ? `; pending: ${known.join(', ')}` : '; nothing is pending'}`);
    }
    if (entry.decision) throw new Error(`Approval '${decision.approvalId}' was already decided (${entry.decision.choice})`);
    const { decision: _decision, ...pending } = entry;
    return { entry, decidedBy: this.deps.authenticate(decision, pending) };
  }

  private record(entry: Omit<ApprovalAuditEntry, 'at'>): void {
    this.audit.push({ ...entry, at: new Date(this.deps.now()).toISOString() });
    if (this.audit.length > MAX_AUDIT_ENTRIES) this.audit.shift();
  }

  /** What the tool's activity may check for itself before it runs a call (see cleared-call.ts). */
  policy(): GatePolicy {
    return { mode: this.settings.mode, surface: this.settings.surface, unattendedPolicy: this.settings.unattendedPolicy };
  }

  /** Gates a call its own activity assessed and handed back: it needs more than the policy alone. */
  async gate(call: ToolCallPlan, assessment: CommandAssessment): Promise<ApprovalGateResult> {
    const result = await this.decideCall(call, assessment);
    return result.approved ? clearedCall(assessment, result.note) : result;
  }

  private async decideCall(call: ToolCallPlan, assessment: CommandAssessment): Promise<ApprovalGateResult> {
    // A hook's block comes first, as in the original: nobody is asked about a call that will not run.
    if (assessment.hookBlock) return { approved: false, message: assessment.hookBlock.message, blockedBy: assessment.hookBlock.source };
    const decision = decideCommand({
      assessment,
      mode: this.settings.mode,
      surface: this.settings.surface,
      unattendedPolicy: this.settings.unattendedPolicy,
      sessionApprovals: this.sessionApprovals,
      allowlist: this.allowlist,
      // Not the model's call id: the model chooses those, and could repeat one.
      callNonce: uuid4(),
    });
    switch (decision.action) {
      case 'run':
        return decision.note ? { approved: true, note: decision.note } : { approved: true };
      case 'block':
        return { approved: false, message: decision.message };
      case 'smart-review': {
        const verdict = await this.deps.review(assessment.display ?? assessment.command ?? '', decision.description);
        if (verdict === 'approve') return { approved: true, note: approvedNote(decision.description, 'smart') };
        if (verdict === 'deny') return this.ask(call, assessment, { ...decision, smartDenied: true });
        return this.ask(call, assessment, decision);
      }
      case 'ask':
        return this.ask(call, assessment, decision);
    }
  }

  private async ask(
    call: ToolCallPlan,
    assessment: CommandAssessment,
    request: { description: string; keys: string[]; allowAlways: boolean; smartDenied?: boolean },
  ): Promise<ApprovalGateResult> {
    // Approvals given while this one was queued (same keys, same session) count.
    if (!request.smartDenied && request.keys.every((key) => this.sessionApprovals.has(key))) {
      return { approved: true, note: approvedNote(request.description, 'user') };
    }
    this.counter += 1;
    const now = this.deps.now();
    const entry: Entry = {
      approvalId: `ap-${this.counter}`,
      toolCallId: call.id,
      command: (assessment.display ?? assessment.command ?? '').slice(0, 4000),
      ...(assessment.tool ? { tool: assessment.tool } : {}),
      ...(assessment.boundFiles?.length ? { boundFiles: assessment.boundFiles } : {}),
      description: request.description,
      keys: request.keys,
      allowAlways: request.allowAlways && !request.smartDenied,
      ...(request.smartDenied ? { smartDenied: true } : {}),
      requestedAt: new Date(now).toISOString(),
      expiresAt: new Date(now + this.settings.timeoutSeconds * 1000).toISOString(),
    };
    this.entries.set(entry.approvalId, entry);
    this.deps.onPendingChange(this.pendingCount());
    if (this.settings.webhook) {
      const { decision: _decision, ...pending } = entry;
      await this.deps.notify(pending).catch((error: unknown) => log.warn('Approval webhook failed', { error: String(error) }));
    }

    const timeoutMs = this.settings.timeoutSeconds * 1000;
    const decided = this.options.sharedDeadlines ? await this.decidedWithin(entry, timeoutMs) : await condition(() => entry.decision !== undefined, timeoutMs);
    if (!decided) {
      entry.decision = { approvalId: entry.approvalId, choice: 'deny', applied: 'deny', decidedBy: 'timeout' };
      this.deps.onPendingChange(this.pendingCount());
      return { approved: false, message: timedOut() };
    }
    const decision = entry.decision as NonNullable<Entry['decision']>;
    if (decision.applied === 'deny') return { approved: false, message: deniedByUser(decision.reason) };
    if (decision.applied === 'always') {
      for (const key of entry.keys) this.allowlist.add(key);
      await this.deps.persist(entry.keys);
    }
    return { approved: true, note: approvedNote(request.description, approverKind(decision.decidedBy)) };
  }

  /** Waits for a decision at most `timeoutMs` from now, on the timer every approval waiting from the same moment shares. */
  private async decidedWithin(entry: Entry, timeoutMs: number): Promise<boolean> {
    // From when the wait starts (after any webhook), as a timer of its own would run.
    const at = this.deps.now() + timeoutMs;
    let deadline = this.deadlines.get(at);
    if (!deadline) {
      const created: SharedDeadline = { expired: false, waiting: 0, scope: new CancellationScope() };
      created.scope
        .run(() => sleep(timeoutMs))
        .then(
          () => (created.expired = true),
          () => undefined, // cancelled: nobody waits for it any more
        )
        .finally(() => this.deadlines.get(at) === created && this.deadlines.delete(at));
      this.deadlines.set(at, created);
      deadline = created;
    }
    const shared = deadline;
    shared.waiting += 1;
    try {
      await condition(() => entry.decision !== undefined || shared.expired);
    } finally {
      shared.waiting -= 1;
      // The last one decided in time: its timer goes, rather than fire for nobody.
      if (shared.waiting === 0 && !shared.expired) {
        this.deadlines.delete(at);
        shared.scope.cancel();
      }
    }
    return entry.decision !== undefined;
  }

  private approveForSession(keys: string[]): void {
    for (const key of keys) this.sessionApprovals.add(key);
    // Other waiting commands whose every key is now approved need no second answer.
    for (const entry of this.entries.values()) {
      if (!entry.decision && !entry.smartDenied && entry.keys.every((key) => this.sessionApprovals.has(key))) {
        entry.decision = { approvalId: entry.approvalId, choice: 'session', applied: 'session', decidedBy: 'session approval' };
      }
    }
  }
}
