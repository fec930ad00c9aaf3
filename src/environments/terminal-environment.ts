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
  /** Backend-specific identity (container id, host, instance name). */
  id?: string;
}

export interface ExecRequest {
  command: string;
  /** Absolute directory to run in; defaults to the handle's cwd. */
  cwd?: string;
  timeoutMs: number;
  env?: Record<string, string>;
  signal?: AbortSignal;
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

export interface TerminalEnvironment {
  readonly handle: EnvironmentHandle;
  readonly workspace: Workspace;
  exec(request: ExecRequest): Promise<ExecResult>;
  /** Stops the command started with `id` by a worker that died, if it still runs here. */
  killOrphan(id: string): Promise<void>;
  /** Release live resources held by this worker (connections, containers when the session ends). */
  stop(): Promise<void>;
}
