// Shapes of the approval flow that cross the workflow boundary (pure, JSON only).
import type { CommandVerdict } from './verdict';

export const APPROVAL_CHOICES = ['once', 'session', 'always', 'deny'] as const;
export type ApprovalChoice = (typeof APPROVAL_CHOICES)[number];

export type ApprovalMode = 'manual' | 'smart' | 'off';
/**
 * Who can answer: `interactive` (a terminal prompts), `async` (CLI, webhook or Temporal UI, at
 * any later time) or `unattended` (nobody: the unattended policy decides at once).
 */
export type ApprovalSurface = 'interactive' | 'async' | 'unattended';
export type UnattendedPolicy = 'deny' | 'approve';

/** The approval settings a session runs with (from configuration and `run` flags). */
export interface SessionApprovalSettings {
  mode: ApprovalMode;
  surface: ApprovalSurface;
  unattendedPolicy: UnattendedPolicy;
  /** How long a pending approval waits before it counts as denied. */
  timeoutSeconds: number;
  /** Notify this URL (signed POST) whenever an approval is pending. */
  webhook: boolean;
}

export const DEFAULT_APPROVAL_SETTINGS: SessionApprovalSettings = {
  mode: 'manual',
  surface: 'async',
  unattendedPolicy: 'deny',
  timeoutSeconds: 1800,
  webhook: false,
};

/** A human decision, as sent by the CLI, the webhook endpoint or the Temporal UI. */
export interface ApprovalDecision {
  approvalId: string;
  choice: ApprovalChoice;
  reason?: string;
  /** Who decided (`cli:alice`, `webhook`, `temporal-ui`, ...), for the audit trail. */
  decidedBy?: string;
}

export interface PendingApproval {
  approvalId: string;
  toolCallId: string;
  /** The command as it will run (clipped for display). */
  command: string;
  description: string;
  /** Canonical keys that a `session` or `always` answer approves. */
  keys: string[];
  /** False for compound or multi-line commands: no permanent rule from those. */
  allowAlways: boolean;
  /** Set when smart approval judged the command dangerous: only once/deny are offered. */
  smartDenied?: boolean;
  requestedAt: string;
  expiresAt: string;
}

/** What the workflow learns about a terminal call before deciding (from a local activity). */
export interface CommandAssessment {
  /** Absent when the arguments could not be read (the tool call will report that itself). */
  command?: string;
  verdict?: CommandVerdict;
  /** The user deny rule (`approvals.deny` glob) the command matches, if any. */
  deniedBy?: string;
  /** True when the environment is an isolated container without host mounts. */
  isolated: boolean;
}

/** The decision the workflow hands to the terminal tool for one call. */
export type ApprovalGateResult = { approved: true; note?: string } | { approved: false; message: string };
