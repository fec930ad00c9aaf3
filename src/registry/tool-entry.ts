// The shape of a registered tool and of the context a handler runs in.
import type { z } from 'zod';
import type { Workspace } from '../environments/workspace';
import type { EnvironmentHandle, TerminalEnvironment } from '../environments/terminal-environment';
import type { MemoryStore } from '../memory/memory-store';
import type { SessionStore } from '../store/session-store';

/** OpenAI function-calling schema, without the `{type: "function"}` wrapper. */
export interface FunctionSchema {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** One entry of the `tools` array sent to the model. */
export interface ToolDefinition {
  type: 'function';
  function: FunctionSchema;
}

/**
 * How a call may share a turn with its siblings:
 * - `parallel`: independent of other calls, may run concurrently;
 * - `path`: may run concurrently unless another call in the run writes an overlapping path
 *   (reads of the same path may share a run; `access` defaults to `write`);
 * - `exclusive`: runs alone, in order (needs the user, or touches shared state).
 */
export type CallConcurrency =
  | { mode: 'parallel' }
  | { mode: 'path'; path: string; access?: 'read' | 'write' }
  | { mode: 'exclusive' };

export interface ToolContext {
  sessionId: string;
  toolCallId: string;
  /** Task id used to key per-task state (environments, overrides). */
  taskId: string;
  /** The text of the user's task, for tools that want it. */
  userTask?: string;
  /** Where relative paths and commands resolve. */
  workspace: Workspace;
  /** The session's terminal environment (local, docker, ssh, ...). */
  environment: TerminalEnvironment;
  /** Aborted when the activity is cancelled (session cancelled, worker shutting down, timeout). */
  signal: AbortSignal;
  /** Report liveness (and optional progress) while a long tool runs. */
  heartbeat(details?: unknown): void;
  /** Limits and defaults from configuration. */
  settings: ToolSettings;
  /**
   * execute_code only: runs one tool call of its script through the session (the approval gate,
   * the transcript) and returns the result string. Absent outside a session.
   */
  callTool?: (name: string, args: Record<string, unknown>) => Promise<string>;
  /** execute_code only: the tools its script may call (the session's, filtered). */
  callableTools?: readonly string[];
  /** transform_terminal_output hooks: the terminal passes its foreground output through them (absent: none). */
  transformTerminalOutput?: (terminal: { command: string; output: string; returncode: number }) => Promise<string>;
  /** Worker-side services for tools that need more than the session's backend (absent in bare tests). */
  services?: ToolServices;
  /** The session's approval decision for this call (absent outside a session: tools keep their own floor). */
  commandApproval?: { approved: true; note?: string; boundFiles?: BoundFile[]; linkFreePaths?: string[]; sensitive?: true } | { approved: false; message: string };
}

/** What the worker hands tools besides the backend; each tool says plainly when one is missing. */
export type RecallScope = 'workspace' | 'all';

export interface ToolServices {
  /** The durable memory (MEMORY.md / USER.md), shared by every worker on the same store. */
  memory?: MemoryStore;
  /** The session store, for tools that read past sessions (session_search). */
  sessions?: SessionStore;
  /** Which past sessions session_search finds: those started in the asker's folder (default), or all. */
  recallScope?: RecallScope;
  /**
   * The worker's own secret files (its home, stores, approver key) as real paths, folders ending
   * in `/`: a search skips them, as a read of one waits for a human.
   */
  secretFiles?: () => Promise<readonly string[]>;
  /**
   * What the session's commands cannot see (the local sandbox's hidden paths and the host folders
   * it replaces), as a test of a real path; undefined on other backends. A search skips it.
   */
  hiddenFromCommands?: (environment: EnvironmentHandle) => ((realPath: string) => boolean) | undefined;
  /** Hides secrets as every result is hidden before the model sees it (a search counts only what survives). */
  redact?: (text: string) => string;
}

/** A workspace file an approved command runs, with its content digest when it was shown for approval. */
export interface BoundFile {
  path: string;
  /** Hex SHA-256 of the content, or `null` when the file did not exist yet. */
  sha256: string | null;
}

/**
 * What a call would do to the world, named by the tool itself from its arguments (pure: no I/O).
 * The approval gate resolves the rest (symlinks, the process a write targets, file digests) on the
 * session's backend and judges it before the call runs.
 */
export interface AssessmentRequest {
  /** Shell text the call runs (terminal). */
  commands?: { text: string; via: 'terminal'; workdir?: string }[];
  /** Files the call reads (absolute, `~/…`, or relative to the session's cwd). */
  reads?: string[];
  /** Folders whose whole tree the call reads (search_files). */
  searches?: string[];
  /** Files the call creates or changes. */
  writes?: string[];
  /** What a write would put there (the content, or the replaced text and its replacement): shown to whoever decides. */
  preview?: string;
  /** The written path whose whole new content `preview` is (write_file): shown as how it changes the file there now. */
  previewReplaces?: string;
  /** Text the write replaces and its replacement (patch): shown as how one changes into the other. */
  previewChange?: { before: string; after: string; everywhere: boolean };
  /** Text typed into a background process: a command when that process is a shell or an interpreter. */
  processInput?: { processId: string; data: string; action: 'write' | 'submit' };
  /**
   * The call waits for a human whatever it touches (an MCP tool marked `require_approval`):
   * `display` is what the approver reads, `key` what a `session` answer approves from then on.
   */
  approval?: { description: string; key: string; display: string };
  /**
   * Text kept where every later session reads it (memory). It waits for a human when this
   * session holds what only a person's approval gave it: the model may be passing that on.
   */
  remembers?: string;
}

/** The part of the configuration tools read; plain data so tests can build it by hand. */
export interface ToolSettings {
  terminal: {
    /** Foreground timeout when the model gives none. */
    defaultTimeoutSeconds: number;
    /** Largest foreground timeout the model may ask for. */
    maxForegroundTimeoutSeconds: number;
    /** Output beyond this keeps its head and tail only. */
    maxOutputChars: number;
    /** session.parallel_terminal: which terminal calls of a turn may run side by side. */
    parallel?: 'read_only' | 'always' | 'never';
  };
}

export const DEFAULT_TOOL_SETTINGS: ToolSettings = {
  terminal: { defaultTimeoutSeconds: 180, maxForegroundTimeoutSeconds: 600, maxOutputChars: 50_000 },
};

export type ToolHandler<Args> = (args: Args, context: ToolContext) => string | Promise<string>;
/** What availability checks may consult about the worker they run on. */
export interface CheckContext {
  /** Why the session's terminal backend cannot work on this worker, if it cannot. */
  terminalUnavailableReason?: () => Promise<string | undefined>;
  /** The session's terminal backend, when known (execute_code needs one it can spawn scripts on). */
  backend?: string;
}

/** Is the tool usable here? `true`/`false`, or a string: unavailable, and why. */
export type CheckFn = (context: CheckContext) => boolean | string | Promise<boolean | string>;

export interface RegisterOptions<Schema extends z.ZodObject = z.ZodObject> {
  name: string;
  toolset: string;
  /** zod schema of the arguments; the model-facing JSON schema is derived from it. */
  schema: Schema;
  /** Model-facing description; also shown to people unless `displayDescription` is set. */
  description: string;
  handler: ToolHandler<z.infer<Schema>>;
  checkFn?: CheckFn;
  requiresEnv?: string[];
  /** Kept for parity with the original; every handler may return a Promise. */
  isAsync?: boolean;
  emoji?: string;
  /** Results longer than this are saved to a file and replaced by a preview. */
  maxResultChars?: number;
  /** Per-call concurrency; defaults to `exclusive`, the safe choice. */
  concurrency?: (args: z.infer<Schema>, settings?: ToolSettings) => CallConcurrency;
  /** True when re-running an interrupted call cannot do harm (pure reads). */
  retrySafe?: boolean;
  /**
   * Per call, for tools where only some calls are pure reads (e.g. `process` list/poll/log);
   * wins over `retrySafe`. Gets the model's arguments as sent, before coercion and validation.
   */
  retrySafeFor?: (args: Record<string, unknown>) => boolean;
  /**
   * Whether a call may change the session's workspace, so that a checkpoint is taken before it
   * (src/checkpoints). Unset: every call that is not retry-safe (a pure read) may. Gets the
   * model's arguments as sent.
   */
  changesWorkspace?: (args: Record<string, unknown>) => boolean;
  /**
   * For tools whose schema mentions other tools: rebuild the schema for the set of tools that
   * survived filtering, so the model never hears of a tool it cannot call.
   */
  patchSchema?: (schema: FunctionSchema, availableTools: ReadonlySet<string>, context?: SchemaContext) => FunctionSchema;
  /**
   * The session workflow handles calls of this tool itself (they change session state: the plan,
   * sub-agents); the registry entry gives the schema the model sees and is never dispatched.
   */
  runsInWorkflow?: boolean;
  /**
   * What the approval gate must see before this call runs. Every tool that runs commands, types
   * into processes, or reads or writes files declares it; a tool without it is never gated. Gets
   * the arguments as the handler will (coerced and validated); must be pure and never throw.
   */
  assess?: (args: Record<string, unknown>) => AssessmentRequest;
}

export interface ToolEntry {
  readonly name: string;
  readonly toolset: string;
  readonly schema: FunctionSchema;
  readonly argumentsSchema: z.ZodObject;
  readonly handler: ToolHandler<Record<string, unknown>>;
  readonly checkFn?: CheckFn;
  readonly requiresEnv: readonly string[];
  readonly isAsync: boolean;
  readonly description: string;
  readonly emoji: string;
  readonly maxResultChars?: number;
  readonly concurrency: (args: Record<string, unknown>, settings?: ToolSettings) => CallConcurrency;
  readonly retrySafe: boolean;
  readonly retrySafeFor?: (args: Record<string, unknown>) => boolean;
  readonly changesWorkspace?: (args: Record<string, unknown>) => boolean;
  readonly patchSchema?: (schema: FunctionSchema, availableTools: ReadonlySet<string>, context?: SchemaContext) => FunctionSchema;
  readonly runsInWorkflow: boolean;
  readonly assess?: (args: Record<string, unknown>) => AssessmentRequest;
}

/** What a session tells schema patching beyond the tool list (e.g. its delegation limits). */
export interface SchemaContext {
  delegation?: { maxConcurrentChildren: number; maxSpawnDepth: number; orchestratorEnabled: boolean };
}

/** Whether re-running this call after its worker died cannot do harm. */
export function isRetrySafeCall(entry: ToolEntry | undefined, args: Record<string, unknown> | undefined): boolean {
  if (!entry) return false;
  if (entry.retrySafeFor) return args !== undefined && entry.retrySafeFor(args);
  return entry.retrySafe;
}

/** Whether this call may change the session's workspace (a checkpoint is taken before it). */
export function mayChangeWorkspace(entry: ToolEntry | undefined, args: Record<string, unknown> | undefined): boolean {
  if (!entry || entry.runsInWorkflow) return false;
  if (entry.changesWorkspace) return args === undefined || entry.changesWorkspace(args);
  return !isRetrySafeCall(entry, args);
}

export const DEFAULT_TOOL_EMOJI = '⚡';
export const DEFAULT_MAX_RESULT_CHARS = 100_000;
