// The session's in-memory state and what queries report about it. Plain class, no Temporal
// calls, so the workflow stays a readable loop.
import type { PendingApproval } from '../approval-signals/approval-types';
import type { EnvironmentHandle } from '../environments/terminal-environment';
import type { SessionStatusValue } from '../temporal/search-attributes';
import { withRecordedWorkspace } from './recorded-workspace';
import type { ChildEvent } from './subagents';
import type {
  RunningTool,
  SessionCarryOver,
  SessionInput,
  SessionResult,
  SessionStatus,
  ToolCallPlan,
  ToolEvent,
  ToolOutcome,
  TokenUsage,
  TranscriptEntry,
  TranscriptView,
} from './session-types';

const MAX_EVENTS = 200;
const EVENTS_CARRIED_OVER = 20;
const MAX_RECENT_MESSAGES = 50;

export class SessionState {
  status: SessionStatusValue = 'running';
  turn: number;
  nextSeq: number;
  toolCallCount: number;
  environment: EnvironmentHandle;
  lastError: string | null = null;
  result: SessionResult | null = null;
  tokens: TokenUsage;
  /** Whether a tool call started a background process, which outlives its call. */
  backgroundStarted: boolean;
  /** When the session's first run started (workflow time). */
  readonly startedAtMs: number;
  private readonly running = new Map<string, RunningTool & { startedMs: number }>();
  private readonly events: ToolEvent[] = [];
  private eventIndex: number;
  private readonly recent: TranscriptEntry[] = [];

  constructor(private readonly input: SessionInput) {
    this.turn = input.resume?.turn ?? 0;
    this.nextSeq = input.resume?.nextSeq ?? 0;
    this.toolCallCount = input.resume?.toolCallCount ?? 0;
    // The local backend is never "started": its workspace is recorded here, where the session
    // begins, so a later `cd` moves only the cwd and never the folder commands may write.
    this.environment = withRecordedWorkspace(input.resume?.environment ?? input.environment, input.environment.cwd);
    this.eventIndex = input.resume?.eventIndex ?? 0;
    this.tokens = { ...(input.resume?.tokens ?? { input: 0, output: 0 }) };
    this.backgroundStarted = input.resume?.backgroundStarted ?? false;
    this.startedAtMs = input.resume?.startedAtMs ?? Date.now();
    this.events.push(...(input.resume?.recentEvents ?? []));
  }

  /** Reserves `count` consecutive transcript seqs and returns the first. */
  reserveSeqs(count: number): number {
    const first = this.nextSeq;
    this.nextSeq += count;
    return first;
  }

  recordAssistant(seq: number, preview: string): void {
    this.remember({ seq, role: 'assistant', preview });
  }

  toolStarted(call: ToolCallPlan, nowMs: number): void {
    this.running.set(call.id, { callId: call.id, name: call.name, summary: call.summary, startedAt: new Date(nowMs).toISOString(), startedMs: nowMs });
    this.pushEvent({ type: 'tool_started', turn: this.turn, callId: call.id, name: call.name, summary: call.summary });
  }

  toolFinished(call: ToolCallPlan, outcome: ToolOutcome, nowMs: number): void {
    const started = this.running.get(call.id);
    this.running.delete(call.id);
    this.toolCallCount += 1;
    if (outcome.environment) this.environment = outcome.environment;
    if (outcome.backgroundStarted) this.backgroundStarted = true;
    this.remember({ seq: outcome.seq, role: 'tool', name: call.name, preview: outcome.preview });
    this.pushEvent({
      type: 'tool_finished',
      turn: this.turn,
      callId: call.id,
      name: call.name,
      summary: call.summary,
      ok: outcome.ok,
      preview: outcome.preview,
      durationMs: started ? nowMs - started.startedMs : 0,
    });
  }

  addTokens(usage: TokenUsage | undefined): void {
    if (!usage) return;
    this.tokens.input += usage.input;
    this.tokens.output += usage.output;
  }

  /** A sub-agent started or reported: shown in the event stream like a tool. */
  childEvent(event: ChildEvent): void {
    const { child } = event;
    if (event.type === 'child_started') {
      this.pushEvent({ type: 'child_started', turn: this.turn, callId: child.sessionId, name: 'delegate_task', summary: child.goal });
      return;
    }
    const { report } = event;
    this.pushEvent({
      type: 'child_finished',
      turn: this.turn,
      callId: child.sessionId,
      name: 'delegate_task',
      summary: child.goal,
      ok: report.status === 'completed',
      preview: `${report.status}: ${(report.error ?? report.preview).replace(/\s+/g, ' ').slice(0, 200)}`,
      durationMs: Math.round(report.durationSeconds * 1000),
    });
  }

  carryOver(): Omit<SessionCarryOver, 'approvals'> {
    return {
      tokens: { ...this.tokens },
      startedAtMs: this.startedAtMs,
      turn: this.turn,
      nextSeq: this.nextSeq,
      toolCallCount: this.toolCallCount,
      environment: this.environment,
      eventIndex: this.eventIndex,
      recentEvents: this.events.slice(-EVENTS_CARRIED_OVER),
      ...(this.backgroundStarted ? { backgroundStarted: true } : {}),
    };
  }

  statusView(pendingApprovals: PendingApproval[]): SessionStatus {
    return {
      sessionId: this.input.sessionId,
      status: this.status,
      turn: this.turn,
      maxTurns: this.input.maxTurns,
      toolCalls: this.toolCallCount,
      runningTools: [...this.running.values()].map(({ startedMs: _startedMs, ...tool }) => tool),
      lastError: this.lastError,
      events: [...this.events],
      pendingApprovals,
      result: this.result,
      tokens: { ...this.tokens },
    };
  }

  transcriptView(): TranscriptView {
    return { sessionId: this.input.sessionId, nextSeq: this.nextSeq, store: 'session-store', recent: [...this.recent] };
  }

  private pushEvent(event: Omit<ToolEvent, 'index'>): void {
    this.events.push({ index: this.eventIndex++, ...event });
    if (this.events.length > MAX_EVENTS) this.events.shift();
  }

  private remember(entry: TranscriptEntry): void {
    this.recent.push(entry);
    if (this.recent.length > MAX_RECENT_MESSAGES) this.recent.shift();
  }
}
