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
  /** Public keys whose signed decisions this session accepts (never a private key). */
  approvers: ApproverPublicKey[];
  /**
   * Accept decisions without a signature (the Temporal UI's signal), recorded as `unsigned:...`.
   * Only for servers with their own authentication: anyone who reaches the server could answer.
   */
  acceptUnsigned: boolean;
}

/** An approver's Ed25519 public key (64 hex characters) and the name decisions are recorded under. */
export interface ApproverPublicKey {
  name: string;
  publicKey: string;
}

export const DEFAULT_APPROVAL_SETTINGS: SessionApprovalSettings = {
  mode: 'manual',
  surface: 'async',
  unattendedPolicy: 'deny',
  timeoutSeconds: 1800,
  webhook: false,
  // A session that was given no keys accepts no decision: fail closed.
  approvers: [],
  acceptUnsigned: false,
};

/** A human decision, as sent by the CLI, the webhook endpoint or the Temporal UI. */
export interface ApprovalDecision {
  approvalId: string;
  choice: ApprovalChoice;
  reason?: string;
  /**
   * Who claims to decide (`temporal-ui`, ...). Only a claim: the workflow records the verified
   * approver of a signed decision, and `unsigned:<claim>` where unsigned ones are accepted.
   */
  decidedBy?: string;
  /** The approver's signature over this decision (see decision-signature.ts). */
  signature?: DecisionSignature;
}

/** Proof that an approver key made a decision for exactly one pending approval. */
export interface DecisionSignature {
  /** The signing key (64 hex characters); the session must list it among its approvers. */
  publicKey: string;
  /** When it was signed (ISO 8601), as the signer's clock says. */
  signedAt: string;
  /** How the decision was given (`cli:alice`, `prompt`, `webhook:chat:bob`), signed with it. */
  via?: string;
  /** Ed25519 signature over the canonical payload (128 hex characters). */
  value: string;
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
  /** Why the latest decision sent for this approval was refused (e.g. it was unsigned). */
  refusedDecision?: string;
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
