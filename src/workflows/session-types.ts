// JSON-only types that cross the workflow boundary: session input and result, the small
// summaries activities return, and what queries answer. Pure module shared by every side.
import type { ApprovalGateResult, PendingApproval, SessionApprovalSettings } from '../approval-signals/approval-types';
import type { EnvironmentHandle } from '../environments/terminal-environment';
import type { CallConcurrency } from '../registry/tool-entry';
import type { SessionStatusValue } from '../temporal/search-attributes';

export interface SessionInput {
  sessionId: string;
  task: string;
  model: string;
  /** OpenAI-compatible endpoint for this session; the API key stays on the worker. */
  baseUrl?: string;
  /** Where the terminal runs and relative paths resolve. */
  environment: EnvironmentHandle;
  toolsets?: string[];
  disabledToolsets?: string[];
  maxTurns: number;
  parentSessionId?: string;
  limits?: Partial<SessionLimits>;
  /**
   * Task queue for the session's tool calls and environment lifecycle, when its backend is served
   * by dedicated workers (e.g. `tools-docker` on the Docker host).
   */
  toolTaskQueue?: string;
  /** How dangerous commands are approved (defaults: manual mode, async surface). */
  approvals?: Partial<SessionApprovalSettings>;
  /** Present when this run continues an earlier one (continue-as-new). */
  resume?: SessionCarryOver;
}

export interface SessionLimits {
  modelTimeoutSeconds: number;
  modelMaxAttempts: number;
  modelRetryInitialIntervalMs: number;
  /** Upper bound for one tool call (the terminal's foreground maximum plus a margin). */
  toolTimeoutSeconds: number;
  /** A tool call whose worker is silent this long is retried elsewhere (as "interrupted"). */
  toolHeartbeatTimeoutSeconds: number;
  /** Continue as new after this many turns even if the server has not suggested it. */
  turnsPerRun: number;
}

export const DEFAULT_SESSION_LIMITS: SessionLimits = {
  modelTimeoutSeconds: 600,
  modelMaxAttempts: 8,
  modelRetryInitialIntervalMs: 1000,
  toolTimeoutSeconds: 660,
  toolHeartbeatTimeoutSeconds: 10,
  turnsPerRun: 200,
};

/** The little state a session carries into its next run. */
export interface SessionCarryOver {
  turn: number;
  nextSeq: number;
  toolCallCount: number;
  environment: EnvironmentHandle;
  /** Tool-event counter, so clients following events see no gap across runs. */
  eventIndex: number;
  /** The latest tool events, so a follower polling across the run boundary misses none. */
  recentEvents: ToolEvent[];
  /** Background processes the model asked to be told about when they end, still running. */
  watchedProcesses?: string[];
  /** Notifications not yet shown to the model. */
  pendingNotifications?: string[];
  /** Session approvals and the permanent allowlist as read at session start. */
  approvals: { sessionApprovals: string[]; allowlist: string[]; approvalCounter: number };
}

export type SessionOutcome = 'completed' | 'max_turns';

export interface SessionResult {
  status: SessionOutcome;
  answer: string;
  turns: number;
  toolCalls: number;
  /** Why the session stopped, when it was not a normal final answer. */
  reason?: string;
}

/** One tool call as the workflow plans it: no arguments, just what scheduling needs. */
export interface ToolCallPlan {
  id: string;
  name: string;
  /** Short human summary for activity summaries and progress lines. */
  summary: string;
  concurrency: CallConcurrency;
  /** The tool declares what the approval gate must see (`assess`): the call is assessed before it runs. */
  needsAssessment?: boolean;
}

/** What `callModel` returns: the assistant message itself is in the store at `seq`. */
export interface ModelTurn {
  seq: number;
  toolCalls: ToolCallPlan[];
  /** The reply text when the model called no tools (the final answer), bounded. */
  content: string | null;
  finishReason: string | null;
}

export interface ExecuteToolInput {
  sessionId: string;
  /** Where the tool result is stored. */
  seq: number;
  /** Where the assistant message holding the call (and its arguments) is stored. */
  assistantSeq: number;
  toolCallId: string;
  name: string;
  environment: EnvironmentHandle;
  /** The approval gate's decision for the call (absent: its tool declares nothing to assess). */
  gate?: ApprovalGateResult;
}

export interface ToolOutcome {
  seq: number;
  /** False when the result is a JSON error. */
  ok: boolean;
  preview: string;
  resultChars: number;
  /** The environment after the call, when it changed (e.g. a `cd`). */
  environment?: EnvironmentHandle;
  /** Set when the call was terminal(background=true) and started a process. */
  backgroundStarted?: { processId: string; notifyOnComplete: boolean };
}

export interface ToolEvent {
  index: number;
  type: 'tool_started' | 'tool_finished';
  turn: number;
  callId: string;
  name: string;
  summary: string;
  ok?: boolean;
  preview?: string;
  durationMs?: number;
}

export interface RunningTool {
  callId: string;
  name: string;
  summary: string;
  startedAt: string;
}

export interface SessionStatus {
  sessionId: string;
  status: SessionStatusValue;
  turn: number;
  maxTurns: number;
  toolCalls: number;
  runningTools: RunningTool[];
  lastError: string | null;
  /** The most recent tool events (bounded); `index` increases, so clients can follow along. */
  events: ToolEvent[];
  /** Approvals waiting for a human decision, oldest first. */
  pendingApprovals: PendingApproval[];
  result: SessionResult | null;
}

export interface TranscriptEntry {
  seq: number;
  role: 'assistant' | 'tool';
  name?: string;
  preview: string;
}

/** Where the full transcript is, plus short previews of recent messages. */
export interface TranscriptView {
  sessionId: string;
  nextSeq: number;
  /** Full messages live in the session store under this session id. */
  store: 'session-store';
  recent: TranscriptEntry[];
}
