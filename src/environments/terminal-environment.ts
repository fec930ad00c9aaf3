// The one interface every terminal backend implements, and the serialisable handle that lets any
// worker re-attach to a session's environment (DESIGN.md rule 5).
import type { Workspace } from './workspace';

export const BACKENDS = ['local', 'docker', 'ssh', 'singularity', 'modal', 'daytona', 'vercel_sandbox'] as const;
export type Backend = (typeof BACKENDS)[number];

/** Small, JSON-only description of a session's environment; lives in workflow state. */
export interface EnvironmentHandle {
  backend: Backend;
  /** Session working directory; follows `cd` between commands. */
  cwd: string;
  /** The session that owns the environment: names its container, instance or sandbox. */
  sessionId?: string;
  /** Backend identity once started (container id, instance name, sandbox id, host). */
  id?: string;
  /** A few backend facts worth keeping (image, host, whether host paths are mounted). */
  details?: Record<string, string | number | boolean>;
}

export interface ExecRequest {
  command: string;
  /** Absolute directory to run in; defaults to the handle's cwd. */
  cwd?: string;
  timeoutMs: number;
  env?: Record<string, string>;
  signal?: AbortSignal;
  /** Run under a pseudo-terminal (interactive programs; stderr folds into stdout). */
  pty?: boolean;
  /** Called with output as it arrives (for heartbeats and progress). */
  onOutput?: (chunk: string) => void;
  /**
   * Stable id of this command (session and tool call): if the worker dies mid-command, a later
   * attempt uses it to find and stop what was left running.
   */
  id?: string;
  /** Output kept in memory is bounded: head and tail survive, the middle is dropped. */
  maxOutputChars?: number;
}

export interface ExecResult {
  /** stdout and stderr, interleaved as produced. */
  output: string;
  exitCode: number;
  timedOut: boolean;
  interrupted: boolean;
  /** Working directory after the command (a `cd` persists). */
  cwd: string;
}

/** A background process as the `process` tool reports it. */
export interface BackgroundProcessInfo {
  /** `proc_<12 hex>`: what the model passes back as `session_id`. */
  id: string;
  command: string;
  pid?: number;
  cwd: string;
  startedAt: string;
  status: 'running' | 'exited';
  exitCode?: number;
  pty: boolean;
  notifyOnComplete: boolean;
  /** True when a later worker re-found it (its output before that point is on disk only). */
  detached?: boolean;
}

export interface BackgroundStartRequest {
  command: string;
  cwd: string;
  pty?: boolean;
  notifyOnComplete?: boolean;
  env?: Record<string, string>;
}

/**
 * Background processes of one environment. They are kept in the environment itself (pid, log and
 * exit files), so any worker can find them again after a restart where the backend allows.
 */
export interface BackgroundProcesses {
  start(request: BackgroundStartRequest): Promise<BackgroundProcessInfo>;
  list(): Promise<BackgroundProcessInfo[]>;
  /** Current state and the last `tailChars` of output. */
  poll(id: string, tailChars?: number): Promise<{ info: BackgroundProcessInfo; outputTail: string } | undefined>;
  /** Lines of output: `offset` 0 means the last `limit` lines. */
  log(id: string, offset: number, limit: number): Promise<{ info: BackgroundProcessInfo; output: string; totalLines: number } | undefined>;
  /**
   * Which of `ids` still run, in one look (one command on exec-based backends): the ones missing
   * from the answer ended or are unknown here. Watches of many processes share it.
   */
  running?(ids: readonly string[]): Promise<Set<string>>;
  /** Waits (bounded) for the process to exit. */
  wait(id: string, timeoutMs: number, signal?: AbortSignal): Promise<{ info: BackgroundProcessInfo; outputTail: string } | undefined>;
  /** Kills the whole process tree (TERM, then KILL). */
  kill(id: string): Promise<BackgroundProcessInfo | undefined>;
  /** Writes to stdin (`submit` adds a newline; `close` sends EOF). Throws when stdin is not available. */
  write(id: string, data: string): Promise<void>;
  closeStdin(id: string): Promise<void>;
  /**
   * The folder the program reading the process's input is in now, where the backend can tell (a
   * local PTY's shell at its prompt); undefined otherwise. Typed text runs there, not necessarily
   * where the process started.
   */
  inputFolder?(id: string): Promise<string | undefined>;
  /** The session ended: stops whatever of it still runs in the background and forgets its processes. */
  stopAll?(): Promise<void>;
}

export interface TerminalEnvironment {
  readonly handle: EnvironmentHandle;
  readonly workspace: Workspace;
  readonly background: BackgroundProcesses;
  exec(request: ExecRequest): Promise<ExecResult>;
  /** Stops the command started with `id` by a worker that died, if it still runs here. */
  killOrphan(id: string): Promise<void>;
  /**
   * What the command started with `id` printed (head and tail, bounded) before the worker running
   * it died, read from the log the backend keeps beside its pidfile; the log is removed. Call it
   * after `killOrphan`, so the output is complete. Undefined when there is no log (the command
   * ended normally, or the backend cannot keep one: the caller then falls back to heartbeats).
   */
  readOrphanOutput(id: string): Promise<string | undefined>;
  /** Releases what this view holds (usually nothing: connections belong to the driver). */
  release(): Promise<void>;
  /**
   * The program to spawn for `bash -c script` where commands run (the sandbox), with the
   * environment commands see, for a caller that keeps the process's pipes itself (execute_code).
   * Only backends whose processes this worker can spawn directly have it. Call `settle` once the
   * process has ended: it makes the checks a command gets when it ends (see LocalEnvironment) and
   * returns the note for its output, or ''.
   */
  interactiveCommand?(script: string, env?: Record<string, string>): InteractiveCommand;
}

export interface InteractiveCommand {
  file: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  settle(): string;
}

/** What a backend plugs into the factory. */
export interface EnvironmentDriver {
  readonly backend: Backend;
  /** Why the backend cannot work on this worker (no socket, credentials or binary), if so. */
  unavailableReason(): Promise<string | undefined>;
  /** Creates the session's environment, or re-finds it; returns the handle with its identity. */
  start(handle: EnvironmentHandle, signal?: AbortSignal): Promise<EnvironmentHandle>;
  /**
   * A live environment for a started handle. Cheap: drivers cache their connections (per host,
   * per daemon) and build a view with the handle's cwd.
   */
  attach(handle: EnvironmentHandle): Promise<TerminalEnvironment>;
  /** Removes the session's environment for good (session ended). Idempotent. */
  destroy(handle: EnvironmentHandle): Promise<void>;
  /** Closes this worker's cached connections (worker shutdown). */
  releaseAll?(): Promise<void>;
  /**
   * Folders of this machine its sessions' commands can write (a container's host binds, an
   * overlay): like a local workspace, nothing the worker runs outside a sandbox may lie in one.
   */
  hostFolders?(): string[];
}

/**
 * The id a tool call's command runs under (pidfiles): the terminal tool starts it, and a retry
 * after a crash uses the same id to find and kill what was left running.
 */
export function commandIdFor(sessionId: string, toolCallId: string): string {
  return `${sessionId}-${toolCallId}`;
}

/** Failure to reach a backend before a command started: safe to retry elsewhere. */
export class BackendUnavailableError extends Error {
  override readonly name = 'BackendUnavailableError';
}
