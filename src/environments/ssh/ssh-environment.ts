// A session's view of its SSH host: each command on its own channel of the shared connection,
// with the session cwd carried in the handle (a `cd` persists) and timeouts, cancellation and
// dropped connections all ending in a kill of the command's remote process group.
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { ExecBackgroundProcesses } from '../background/exec-background-processes';
import { BoundedOutput } from '../bounded-output';
import { stoppedBeforeStart } from '../exec-deadline';
import { tooLongToStart } from '../argument-limit';
import type { BackgroundProcesses, EnvironmentHandle, ExecRequest, ExecResult, TerminalEnvironment } from '../terminal-environment';
import { watchChannel, type ChannelOutcome, type WatchedChannel } from './command-channel';
import { execScript, killScript, parseControl, readCwdScript, readRunLogScript, runIdFor } from './remote-scripts';
import { parseLog } from '../shell/command-log-script';
import { SftpWorkspace } from './sftp-workspace';
import type { SshLink } from './ssh-connection-pool';

/** What the worker keeps of a command's side channel (its control records and stray errors). */
const SIDE_CHANNEL_CHARS = 32_000;
const DEFAULT_MAX_OUTPUT_CHARS = 50_000;
/** After the kill script, how long the channel may take to close before it is abandoned. */
const SETTLE_AFTER_KILL_MS = 3000;
/** How long a stop waits for the wrapper to report its pid (it does so before the command runs). */
const PID_REPORT_WAIT_MS = 2000;
/** A kill after a dropped connection must not hold the result for long. */
const KILL_AFTER_DROP_BOUND_MS = 10_000;

export interface SshEnvironmentOptions {
  link: SshLink;
  /** Remote home directory (for `~`). */
  home: string;
  /** Variables exported into every command (the worker's passthrough variables). */
  env: Record<string, string>;
  killGraceSeconds: number;
}

/**
 * Where a session's background processes keep their pid, log and exit files on the host: under
 * the remote home, not a shared /tmp path another user could own (or plant) first.
 */
export function backgroundStateDir(home: string, sessionId: string | undefined): string {
  return `${home}/.hermes-temporal/bg/${(sessionId ?? 'default').replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

export class SshEnvironment implements TerminalEnvironment {
  readonly workspace: SftpWorkspace;
  readonly background: BackgroundProcesses;
  private current: EnvironmentHandle;

  constructor(
    handle: EnvironmentHandle,
    private readonly options: SshEnvironmentOptions,
  ) {
    this.current = { ...handle };
    this.workspace = new SftpWorkspace(handle.cwd, options.home, (operation) => options.link.withSftp(operation));
    this.background = new ExecBackgroundProcesses((request) => this.exec(request), backgroundStateDir(options.home, handle.sessionId), Math.ceil(options.killGraceSeconds));
  }

  /** The handle as it is now: a `cd` in a command moves the session's cwd. */
  get handle(): EnvironmentHandle {
    return this.current;
  }

  async exec(request: ExecRequest): Promise<ExecResult> {
    const cwd = request.cwd ?? this.current.cwd;
    const pty = Boolean(request.pty);
    const notStarted = stoppedBeforeStart(request, cwd);
    if (notStarted) return notStarted;
    const runId = runIdFor(request.id ?? `run-${randomUUID()}`);
    const script = execScript({ command: request.command, cwd, env: { ...this.options.env, ...request.env }, runId, pty, pidFile: request.id !== undefined });
    // The remote login shell is handed it as one argument (`$SHELL -c <script>`).
    const tooLong = tooLongToStart(script, cwd);
    if (tooLong) return tooLong;
    // Throws BackendUnavailableError when the host cannot be reached: nothing has run yet.
    const { channel, connection } = await this.options.link.startCommand(script, { pty });

    const output = new BoundedOutput(request.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS);
    // The command can reach the side channel too (the wrapper's saved fd, through /proc): what it
    // writes there is kept to a head and a tail, which hold the wrapper's first and last records.
    const sideChannel = new BoundedOutput(SIDE_CHANNEL_CHARS);
    let pidSeen = false;
    // The wrapper reports its process group on the side channel first thing (non-PTY runs).
    let reportPid: (pid: number) => void = () => undefined;
    const pidReported = new Promise<number>((resolve) => (reportPid = resolve));
    const watched = watchChannel(channel, {
      onStdout: (text) => {
        output.append(text);
        request.onOutput?.(text);
      },
      onStderr: (text) => {
        sideChannel.append(text);
        if (pidSeen) return;
        const { pid } = parseControl(sideChannel.toString());
        if (pid) {
          pidSeen = true;
          reportPid(pid);
        }
      },
    });

    let stopReason: 'timeout' | 'abort' | undefined;
    let stopping: Promise<void> | undefined;
    const stop = (reason: 'timeout' | 'abort') => {
      if (stopReason) return;
      stopReason = reason;
      stopping = this.stopRun(runId, pty ? undefined : pidReported, watched);
    };
    const timer = setTimeout(() => stop('timeout'), request.timeoutMs);
    const onAbort = () => stop('abort');
    // Aborted while waiting for a free channel: the command started, so stop it at once.
    if (request.signal?.aborted) onAbort();
    else request.signal?.addEventListener('abort', onAbort, { once: true });

    try {
      const outcome = await watched.done;
      await stopping;
      const control = parseControl(sideChannel.toString());
      if (control.stray) output.append(control.stray);
      let text = output.toString();
      let finalCwd = cwd;
      let exitCode: number;
      let interrupted = false;
      if (stopReason === 'timeout') {
        exitCode = 124;
        text += `\n[Command timed out after ${Math.round(request.timeoutMs / 1000)}s]`;
      } else if (stopReason === 'abort') {
        exitCode = 130;
        interrupted = true;
        text += '\n[Command interrupted]';
      } else if (outcome.noExitStatus && !connection.alive) {
        // The command may still run without its connection: stop it, and say it was cut short.
        exitCode = 130;
        interrupted = true;
        text += `\n[Command interrupted: the SSH connection to ${this.options.link.target} was lost]`;
        await this.killAfterDrop(runId, control.pid);
      } else {
        ({ exitCode, text } = describeExit(outcome, text));
        finalCwd = (pty ? await this.readPtyCwd(runId) : control.cwd) ?? cwd;
      }
      if (request.cwd === undefined) this.current = { ...this.current, cwd: finalCwd };
      return { output: text, exitCode, timedOut: stopReason === 'timeout', interrupted, cwd: finalCwd };
    } finally {
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onAbort);
    }
  }

  async killOrphan(id: string): Promise<void> {
    await this.options.link.runControl(killScript({ runId: runIdFor(id) }, this.options.killGraceSeconds), this.killBoundMs());
  }

  /**
   * The run's wrapper logs its output on the host (remote-scripts.ts), so the log holds everything
   * up to the orphan's kill. PTY runs keep no log: undefined, and the retry falls back to the
   * heartbeat's output tail.
   */
  async readOrphanOutput(id: string): Promise<string | undefined> {
    const { stdout } = await this.options.link.runControl(readRunLogScript(runIdFor(id)), this.killBoundMs());
    return parseLog(stdout);
  }

  async release(): Promise<void> {
    // The connection belongs to the driver and outlives this view.
  }

  /** Kills the run's process group over a second channel, then waits (bounded) for its channel to close. */
  private async stopRun(runId: string, pidReported: Promise<number> | undefined, watched: WatchedChannel): Promise<void> {
    // Without a reported pid the kill goes by the pid file (PTY runs, or a wrapper that never started).
    const pid = pidReported && (await Promise.race([pidReported, watched.done.then(() => undefined), delay(PID_REPORT_WAIT_MS).then(() => undefined)]));
    await this.options.link
      .runControl(killScript({ runId, ...(pid ? { pid } : {}) }, this.options.killGraceSeconds, { discardLog: true }), this.killBoundMs())
      .catch(() => undefined);
    const settled = await Promise.race([watched.done.then(() => true), delay(SETTLE_AFTER_KILL_MS).then(() => false)]);
    if (!settled) watched.abandon();
  }

  private async killAfterDrop(runId: string, pid: number | undefined): Promise<void> {
    const kill = this.options.link.runControl(killScript({ runId, ...(pid ? { pid } : {}) }, this.options.killGraceSeconds), this.killBoundMs());
    await Promise.race([kill.catch(() => undefined), delay(KILL_AFTER_DROP_BOUND_MS)]);
  }

  private async readPtyCwd(runId: string): Promise<string | undefined> {
    const result = await this.options.link.runControl(readCwdScript(runId), 15_000).catch(() => undefined);
    const cwd = result?.stdout.trim();
    return cwd?.startsWith('/') ? cwd : undefined;
  }

  private killBoundMs(): number {
    return (this.options.killGraceSeconds + 15) * 1000;
  }
}

/** Exit code and notes for a command that ended by itself. */
function describeExit(outcome: ChannelOutcome, text: string): { exitCode: number; text: string } {
  if (outcome.code !== null) return { exitCode: outcome.code, text };
  if (outcome.signal) {
    const name = outcome.signal.startsWith('SIG') ? outcome.signal : `SIG${outcome.signal}`;
    const number = (os.constants.signals as Record<string, number | undefined>)[name];
    return { exitCode: 128 + (number ?? 0), text: `${text}\n[Command terminated by signal ${name}]` };
  }
  return { exitCode: 255, text: `${text}\n[The SSH server reported no exit status]` };
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
