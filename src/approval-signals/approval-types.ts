// Shapes of the approval flow that cross the workflow boundary (pure, JSON only).
import type { BoundFile } from '../registry/tool-entry';
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
  /**
   * What is asked, as a human reads it (clipped): the command as it will run, `write_file
   * ~/.ssh/authorized_keys`, or `process submit to proc_x (bash): rm -rf ~`.
   */
  command: string;
  /** The tool whose call waits (absent in approvals raised before tools other than terminal were gated). */
  tool?: string;
  /** Workspace files the command runs, with the digests the approval binds to. */
  boundFiles?: BoundFile[];
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

/**
 * What the workflow learns about a tool call before deciding (from the assess activity): the
 * command it runs (terminal, or text typed into a shell), the paths it reads or writes as they
 * resolve on the session's backend, and the workspace files the command runs.
 */
export interface CommandAssessment {
  /**
   * The shell text judged; absent when the call runs no command or its arguments could not be read.
   * A text too long to record stands in as its start and SHA-256 (recorded-assessment.ts).
   */
  command?: string;
  verdict?: CommandVerdict;
  /** The user deny rule (`approvals.deny` glob) the command matches, if any. */
  deniedBy?: string;
  /** True when the environment is an isolated container without host mounts. */
  isolated: boolean;
  /** The tool called (absent in assessments recorded before every tool was gated). */
  tool?: string;
  /** What a human reads in a prompt when the call waits (see PendingApproval.command). */
  display?: string;
  /** Paths the call touches, resolved through symbolic links on the backend they live on. */
  paths?: PathFinding[];
  /** Workspace files the command runs, digested when assessed: the approval binds to them. */
  boundFiles?: BoundFile[];
  /** Paths a low-risk delete was granted for as real folders (link-free-paths.ts): checked again when it starts. */
  linkFreePaths?: string[];
  /** The session cwd the call was assessed in: a call that runs after a `cd` is assessed again. */
  cwd?: string;
  /** Input typed into a process that does not run it as code (the text is data). */
  processInput?: { processId: string; program: string; interprets: boolean; partial: boolean };
  /** Why the call could not be assessed: it is not run without a human. */
  problem?: string;
  /** The approval key of the problem, made from the whole call (absent in assessments recorded before it existed). */
  problemKey?: string;
  /** A pre_tool_call hook blocked the call (or the runtime, when its assessment is too large to record): it neither runs nor asks anyone. */
  hookBlock?: { message: string; source: string };
  /** The pre_tool_call hooks ran at assessment and allowed the call. */
  hooksChecked?: true;
  /** The tool says this call needs a human (AssessmentRequest.approval). */
  required?: { description: string; key: string };
}

export interface PathFinding {
  access: 'read' | 'write' | 'search';
  /** As the model wrote it. */
  path: string;
  /** Absolute, every symbolic link followed. */
  resolved: string;
  /** `resolved` as people write it (`~/.ssh/authorized_keys`). */
  shown?: string;
  /** Why a human must agree (`write to a protected file`, `read of a secret file`), when one must. */
  risk?: string;
  /** Never run, even if approved (raw device writes). */
  hardline?: boolean;
  /** The file lives in an isolated sandbox, not on the worker host or a real machine. */
  contained: boolean;
}

/** The decision the workflow hands to the tool for one call. */
export type ApprovalGateResult =
  | {
      approved: true;
      note?: string;
      /** Workspace files the approval binds to: the command is refused if any changed before it runs. */
      boundFiles?: BoundFile[];
      /** Paths that must still lead through no symbolic link when the command starts (link-free-paths.ts). */
      linkFreePaths?: string[];
      /** Resolved paths that were judged: a file tool refuses to touch any other (a link or cwd that changed). */
      checkedPaths?: string[];
      /** The pre_tool_call hooks already allowed this call when it was assessed: the tool does not ask them again. */
      hooksChecked?: true;
      /**
       * The call needs a person's approval by default (a secret read, a dangerous command), whoever
       * gave it: its result is kept for this session, and session_search in others withholds it.
       */
      sensitive?: true;
    }
  | { approved: false; message: string; /** The pre_tool_call hook that blocked it (`plugin:<name>`, `shell:<command>`). */ blockedBy?: string };
