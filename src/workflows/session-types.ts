// JSON-only types that cross the workflow boundary: session input and result, the small
// summaries activities return, and what queries answer. Pure module shared by every side.
import type { ApprovalGateResult, CommandAssessment, PendingApproval, SessionApprovalSettings } from '../approval-signals/approval-types';
import type { StartSignature } from '../approval-signals/start-signature';
import type { GatePolicy } from '../approval-signals/cleared-call';
import type { EnvironmentHandle } from '../environments/terminal-environment';
import type { McpCallTarget, McpListingSummary } from '../mcp/listing-types';
import type { CallConcurrency } from '../registry/tool-entry';
import type { SessionStatusValue } from '../temporal/search-attributes';
import type { ChildView, DelegationSettings, DescendantApprovals, SubagentInfo, SubagentReport } from './delegation-types';
import type { TodoItem } from './todo-list';

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
  /** Sub-agent limits (the `delegation:` config block); children inherit them. */
  delegation?: DelegationSettings;
  /** Set on a sub-agent: its goal, role and place in the delegation tree. */
  subagent?: SubagentInfo;
  /** Present when this run continues an earlier one (continue-as-new). */
  resume?: SessionCarryOver;
  /** The starter's signature over the rest of this input: a root session runs only with a trusted one. */
  startSignature?: StartSignature;
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
  /** How often a session waiting for its sub-agents checks that they still run (a terminated one never reports). */
  subagentCheckSeconds: number;
  /** A turn's calls running at once, at most (session.max_parallel_tool_calls). */
  maxParallelToolCalls: number;
  /** Background processes watched at once, at most (session.max_parallel_watches). */
  maxParallelWatches: number;
}

export const DEFAULT_SESSION_LIMITS: SessionLimits = {
  modelTimeoutSeconds: 600,
  modelMaxAttempts: 8,
  modelRetryInitialIntervalMs: 1000,
  toolTimeoutSeconds: 660,
  toolHeartbeatTimeoutSeconds: 10,
  turnsPerRun: 200,
  subagentCheckSeconds: 300,
  maxParallelToolCalls: 64,
  maxParallelWatches: 256,
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
  /** The plan the model keeps with the todo tool. */
  todos?: TodoItem[];
  subagents?: SubagentsCarryOver;
  tokens?: TokenUsage;
  /** When the session started (ms since the epoch), for a sub-agent's reported duration. */
  startedAtMs?: number;
  /** The MCP tools listed for the session (a digest of the stored listing). */
  mcpListing?: McpListingSummary;
  /** Whether the session started a background process (it is stopped when the session ends). */
  backgroundStarted?: boolean;
}

/** Sub-agents a session carries into its next run. */
export interface SubagentsCarryOver {
  nextChild: number;
  children: ChildView[];
  /** Children not started yet (waiting for a free slot), with their whole input. */
  queued: SessionInput[];
  /** Reports not yet shown to the model. */
  undelivered: SubagentReport[];
  descendantApprovals: DescendantApprovals[];
  /** Reports running children signalled, kept until their workflows are seen closed. */
  claimed?: SubagentReport[];
}

export interface TokenUsage {
  input: number;
  output: number;
}

export type SessionOutcome = 'completed' | 'max_turns' | 'timed_out';

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
  /** For an MCP tool: where the call goes (its activity gets this, the definition the model saw by reference). */
  mcp?: McpCallTarget;
  /** For tools the workflow handles itself (todo, delegate_task): the parsed arguments, or the error result when they are unusable. */
  workflowCall?: { arguments: Record<string, unknown> } | { errorResult: string };
}

/** What `callModel` returns: the assistant message itself is in the store at `seq`. */
export interface ModelTurn {
  seq: number;
  toolCalls: ToolCallPlan[];
  /** The reply text when the model called no tools (the final answer), bounded. */
  content: string | null;
  finishReason: string | null;
  /** Tokens the call used, when the endpoint reports them. */
  usage?: TokenUsage;
}

/** Most refused calls one storeRefusals activity writes: its result (a short outcome each) stays small. */
export const REFUSALS_STORED_TOGETHER = 50;

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
  /**
   * Instead of `gate`: assess the call here and run it if this policy runs it without anyone's
   * approval; otherwise run nothing and hand the assessment back (`needsGate`).
   */
  gatePolicy?: GatePolicy;
  /** execute_code: the seqs reserved for its script's tool calls (request, result, request, ...). */
  innerCalls?: { firstSeq: number; count: number };
  /** Set on a call an execute_code script made: that execute_code call. */
  parentToolCallId?: string;
}

export interface ToolOutcome {
  seq: number;
  /** False when the result is a JSON error. */
  ok: boolean;
  preview: string;
  resultChars: number;
  /** The environment after the call, when it changed (e.g. a `cd`). */
  environment?: EnvironmentHandle;
  /** Set when a pre_tool_call hook blocked the call: which one (`plugin:<name>` or `shell:<command>`). */
  blockedBy?: string;
  /** Set when the call was terminal(background=true) and started a process. */
  backgroundStarted?: { processId: string; notifyOnComplete: boolean };
  /** Set when a call sent with `gatePolicy` needs the gate: nothing ran and nothing was stored. */
  needsGate?: CommandAssessment;
}

/** A tool's start or end; `child_started`/`child_finished` are a sub-agent's (callId: its session id). */
export interface ToolEvent {
  index: number;
  type: 'tool_started' | 'tool_finished' | 'child_started' | 'child_finished';
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
  /** The plan the model keeps with the todo tool. */
  todos?: TodoItem[];
  /** This session's sub-agents (running, queued and recently finished). */
  children?: ChildView[];
  /** On a root: its descendants' pending approvals (answer with `hermes-temporal approve <root> <id>`). */
  descendantApprovals?: DescendantApprovals[];
  /** Set on a sub-agent. */
  parentSessionId?: string;
  rootSessionId?: string;
  depth?: number;
  tokens?: TokenUsage;
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
