// A TerminalEnvironment for any sandbox that can run a bash script (Apptainer instance, Modal,
// Daytona, Vercel): the cwd follows `cd` through a marker line, output is bounded, and a timeout or
// cancellation kills the command's process group inside the sandbox through its pidfile
// (remote exec APIs have no reliable kill of their own).
import { randomBytes, randomUUID } from 'node:crypto';
import { ExecBackgroundProcesses } from '../background/exec-background-processes';
import { BoundedOutput } from '../bounded-output';
import { shellQuote } from '../shell-quote';
import type { BackgroundProcesses, EnvironmentHandle, ExecRequest, ExecResult, TerminalEnvironment } from '../terminal-environment';
import { killCommandScript, wrapCommand } from './command-wrapper';
import { CwdMarkerFilter } from './cwd-marker-filter';
import { ExecWorkspace } from './exec-workspace';
import type { ShellRunner } from './shell-runner';
import { ExecDeadline, stoppedBeforeStart } from '../exec-deadline';
import { tooLongToStart } from '../argument-limit';

export interface ShellEnvironmentOptions {
  run: ShellRunner;
  /** Time between TERM and KILL when a command or background process is stopped. */
  killGraceMs?: number;
  /** Home directory inside the sandbox, for `~` in file paths, when the handle has none (`details.home`). */
  home?: string;
  /** Directory inside the sandbox for pidfiles and background-process files. */
  stateRoot?: string;
  /**
   * Shell text run before each command (limits it sets bind the command and what it starts); not
   * before the kill scripts, which must still run when a command has used up such a limit.
   */
  commandPrelude?: string;
  /** What the backend takes in the argument that carries a command; the kernel's MAX_ARG_STRLEN unless less. */
  maxScriptBytes?: number;
}

const DEFAULT_MAX_OUTPUT_CHARS = 50_000;
/** A runner that does not settle this long after being aborted is abandoned (a hung stream). */
const ABANDON_AFTER_ABORT_MS = 5_000;
const KILL_SCRIPT_SLACK_MS = 15_000;

export class ShellEnvironment implements TerminalEnvironment {
  readonly workspace: ExecWorkspace;
  readonly background: BackgroundProcesses;
  private current: EnvironmentHandle;
  private readonly stateRoot: string;
  private readonly killGraceMs: number;

  constructor(
    handle: EnvironmentHandle,
    private readonly options: ShellEnvironmentOptions,
  ) {
    this.current = { ...handle };
    this.stateRoot = options.stateRoot ?? '/tmp';
    this.killGraceMs = options.killGraceMs ?? 2000;
    const home = typeof handle.details?.home === 'string' ? handle.details.home : (options.home ?? '/root');
    this.workspace = new ExecWorkspace((request) => this.exec(request), handle.cwd, home);
    const session = (handle.sessionId ?? 'default').replace(/[^A-Za-z0-9_-]/g, '_');
    this.background = new ExecBackgroundProcesses((request) => this.exec(request), `${this.stateRoot}/hermes-bg/${session}`, Math.ceil(this.killGraceMs / 1000));
  }

  /** The handle as it is now: a `cd` in a command moves the session's cwd. */
  get handle(): EnvironmentHandle {
    return this.current;
  }

  async exec(request: ExecRequest): Promise<ExecResult> {
    const cwd = request.cwd ?? this.current.cwd;
    const notStarted = stoppedBeforeStart(request, cwd);
    if (notStarted) return notStarted;
    const pidFile = this.pidFileFor(request.id ?? randomUUID());
    const filter = new CwdMarkerFilter(`__HERMES_CWD_${randomBytes(8).toString('hex')}__`);
    const command = request.pty ? underPseudoTerminal(request.command) : request.command;
    const wrapped = wrapCommand({ command, cwd, pidFile, cwdMarker: filter.marker });
    const script = this.options.commandPrelude ? `${this.options.commandPrelude}\n${wrapped}` : wrapped;
    // Each driver hands the script to bash as one argument, in its sandbox.
    const tooLong = tooLongToStart(script, cwd, this.options.maxScriptBytes);
    if (tooLong) return tooLong;
    const output = new BoundedOutput(request.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS);
    // A terminal ends lines with \r\n; the model sees \n as on the pipe path.
    const lineEnds = request.pty ? new CrlfToLf() : undefined;
    const take = (text: string) => {
      if (!text) return;
      output.append(text);
      request.onOutput?.(text);
    };

    const runnerSignal = new AbortController();
    let stopping: Promise<void> | undefined;
    // Kill inside the sandbox first (the output of a dying command still arrives), then let go.
    const stop = () => {
      stopping ??= this.killByPidFile(pidFile)
        .catch(() => undefined)
        .finally(() => runnerSignal.abort());
    };
    const deadline = new ExecDeadline(request, stop);

    try {
      let exitCode: number;
      try {
        const run = this.options.run({
          script,
          ...(request.env ? { env: request.env } : {}),
          timeoutMs: request.timeoutMs,
          onOutput: (chunk) => take(filter.push(lineEnds ? lineEnds.push(chunk) : chunk)),
          signal: runnerSignal.signal,
        });
        exitCode = await settleSoonAfterAbort(run, runnerSignal.signal);
      } catch (error) {
        // The sandbox could not be reached: the command may never have run; say so to the caller.
        if (!deadline.stopped) throw error;
        exitCode = 137;
      }
      await stopping;
      if (lineEnds) take(filter.push(lineEnds.end()));
      take(filter.end());
      const concluded = deadline.conclude(output.toString(), exitCode);
      const finalCwd = filter.cwd ?? cwd;
      if (request.cwd === undefined) this.current = { ...this.current, cwd: finalCwd };
      return { ...concluded, timedOut: deadline.timedOut, interrupted: deadline.interrupted, cwd: finalCwd };
    } finally {
      deadline.dispose();
    }
  }

  async killOrphan(id: string): Promise<void> {
    await this.killByPidFile(this.pidFileFor(id));
  }

  /**
   * No log in the sandbox yet: output travels only over the exec stream to the worker (and each
   * write into the sandbox is an API call). The retry falls back to the heartbeat's output tail.
   */
  readOrphanOutput(): Promise<string | undefined> {
    return Promise.resolve(undefined);
  }

  async release(): Promise<void> {
    // Connections belong to the driver; a view holds nothing.
  }

  private pidFileFor(id: string): string {
    return `${this.stateRoot}/hermes-commands/${id.replace(/[^A-Za-z0-9_.-]/g, '_')}.pid`;
  }

  private async killByPidFile(pidFile: string): Promise<void> {
    const timeoutMs = this.killGraceMs + KILL_SCRIPT_SLACK_MS;
    const signal = AbortSignal.timeout(timeoutMs);
    const run = this.options.run({
      script: killCommandScript(pidFile, this.killGraceMs / 1000),
      timeoutMs,
      onOutput: () => undefined,
      signal,
    });
    await settleSoonAfterAbort(run, signal);
  }
}

/**
 * The command under a pseudo-terminal from script(1) (util-linux), where the sandbox has it; stderr
 * folds into stdout as on any terminal. Without script(1) it runs on pipes.
 */
function underPseudoTerminal(command: string): string {
  const quoted = shellQuote(`bash -c ${shellQuote(command)}`);
  return `if command -v script >/dev/null 2>&1; then script -qfec ${quoted} /dev/null; else eval ${shellQuote(command)}; fi`;
}

/** Turns \r\n into \n across chunk boundaries. */
class CrlfToLf {
  private carriageReturn = false;

  push(chunk: string): string {
    let text = (this.carriageReturn ? '\r' : '') + chunk;
    this.carriageReturn = text.endsWith('\r');
    if (this.carriageReturn) text = text.slice(0, -1);
    return text.replace(/\r\n/g, '\n');
  }

  end(): string {
    const rest = this.carriageReturn ? '\r' : '';
    this.carriageReturn = false;
    return rest;
  }
}

/** The runner's result, or -1 when it has not settled a little while after being aborted. */
function settleSoonAfterAbort(run: Promise<number>, signal: AbortSignal): Promise<number> {
  return new Promise((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const onAbort = () => {
      timer = setTimeout(() => resolve(-1), ABANDON_AFTER_ABORT_MS);
      timer.unref();
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    const cleanUp = () => {
      if (timer) clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    };
    void run.then(
      (code) => {
        cleanUp();
        resolve(code);
      },
      (error: unknown) => {
        cleanUp();
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
