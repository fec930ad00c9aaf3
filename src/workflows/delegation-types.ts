// What sub-agent delegation carries across the workflow boundary: the limits a session runs
// with, what a child knows about its place in the tree, and the report it sends back.
// Pure module shared by the workflow, activities and the CLI.
import type { SessionInput } from './session-types';

/** The `delegation:` config block as a session carries it (no key: keys stay on workers). */
export interface DelegationSettings {
  maxConcurrentChildren: number;
  maxSpawnDepth: number;
  maxIterations: number;
  /** 0: no limit. */
  childTimeoutSeconds: number;
  maxSummaryChars: number;
  orchestratorEnabled: boolean;
  /** Model and endpoint for children, when they differ from the parent's. */
  model?: string;
  baseUrl?: string;
  subagentAutoApprove: boolean;
}

export const DEFAULT_DELEGATION_SETTINGS: DelegationSettings = {
  maxConcurrentChildren: 3,
  maxSpawnDepth: 1,
  maxIterations: 50,
  childTimeoutSeconds: 0,
  maxSummaryChars: 24_000,
  orchestratorEnabled: true,
  subagentAutoApprove: false,
};

export type SubagentRole = 'leaf' | 'orchestrator';

/** Tools a leaf child never gets (the original's DELEGATE_BLOCKED_TOOLS); orchestrators keep delegate_task. */
export const DELEGATE_BLOCKED_TOOLS: readonly string[] = ['delegate_task', 'clarify', 'memory', 'send_message', 'execute_code', 'cronjob'];

/** The tools a child of this role may have, from its parent's. */
export function childToolNames(parentTools: readonly string[], role: SubagentRole): string[] {
  const blocked = new Set(DELEGATE_BLOCKED_TOOLS);
  if (role === 'orchestrator') blocked.delete('delegate_task');
  return parentTools.filter((tool) => !blocked.has(tool));
}

/** A child session's place in the tree. */
export interface SubagentInfo {
  goal: string;
  context?: string;
  role: SubagentRole;
  /** 1 for a root's children. */
  depth: number;
  /** Position in its delegate_task call (0-based) and the call's size. */
  taskIndex: number;
  taskCount: number;
  /** Where the report goes: the parent's workflow id (no run id, so it reaches the latest run). */
  parentWorkflowId: string;
  rootSessionId: string;
  rootWorkflowId: string;
  /** The child cancels itself and reports `timed_out` after this long (absent: no limit). */
  timeoutSeconds?: number;
}

export type SubagentStatus = 'completed' | 'failed' | 'max_turns' | 'cancelled' | 'timed_out';

/** What a child reports to its parent when it ends; its whole transcript stays in the store. */
export interface SubagentReport {
  sessionId: string;
  taskIndex: number;
  taskCount: number;
  goal: string;
  status: SubagentStatus;
  /**
   * The start of the final answer, for progress displays. The answer itself stays in the child's
   * session record: the parent's activity reads it from the store, so it never enters history.
   */
  preview: string;
  answerChars: number;
  turns: number;
  toolCalls: number;
  tokens: { input: number; output: number };
  durationSeconds: number;
  model: string;
  error?: string;
}

/** A child as its parent shows it (status query, `show`, `run`). */
export interface ChildView {
  sessionId: string;
  workflowId: string;
  goal: string;
  role: SubagentRole;
  depth: number;
  taskIndex: number;
  taskCount: number;
  status: 'queued' | 'running' | SubagentStatus;
  /** Approvals the child (or its own descendants) waits for. */
  pendingApprovals?: number;
}

/** A descendant's pending approvals, as reported up to the root. */
export interface DescendantApprovals {
  sessionId: string;
  workflowId: string;
  count: number;
  /** The oldest pending request, one line. */
  first?: string;
}

/**
 * A child asks the same humans as its parent, under the same rules. subagent_auto_approve (an
 * operator's setting) answers the child's questions with "approve" instead of a human; the
 * hardline floor, deny rules and protected paths still block, and a parent whose own questions
 * are denied unattended passes that on: a child never gets more authority than its parent.
 */
export function childApprovals(parent: Pick<SessionInput, 'approvals'>, settings: Pick<DelegationSettings, 'subagentAutoApprove'>): SessionInput['approvals'] {
  const approvals = { ...parent.approvals };
  const parentDeniesUnattended = approvals.surface === 'unattended' && approvals.unattendedPolicy !== 'approve';
  if (settings.subagentAutoApprove && !parentDeniesUnattended) return { ...approvals, surface: 'unattended', unattendedPolicy: 'approve' };
  // A terminal prompt answers only the root: children wait for decisions from the CLI, webhook or UI.
  if (approvals.surface === 'interactive') return { ...approvals, surface: 'async' };
  return approvals;
}
