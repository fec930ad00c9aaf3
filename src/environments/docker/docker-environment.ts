// A live view of one session's container: commands as execs in their own process group (killed
// from a second exec on timeout or abort), stdout and stderr interleaved in arrival order, the
// cwd carried from one command to the next, background processes and files inside the container.
import { randomBytes, randomUUID } from 'node:crypto';
import { StringDecoder } from 'node:string_decoder';
import type Docker from 'dockerode';
import { ExecBackgroundProcesses } from '../background/exec-background-processes';
import { BoundedOutput } from '../bounded-output';
import type { BackgroundProcesses, EnvironmentHandle, ExecRequest, ExecResult, TerminalEnvironment } from '../terminal-environment';
import { CwdMarkerFilter } from '../shell/cwd-marker-filter';
import { commandScript, killScript, readLogScriptFor } from './command-script';
import { parseLog } from '../shell/command-log-script';
import { BoundHostFolders } from './bound-host-folders';
import { DockerWorkspace } from './docker-workspace';
import { captureExec, runExec, type StreamKind } from './run-exec';
import { ExecDeadline, stoppedBeforeStart } from '../exec-deadline';
import { tooLongToStart } from '../argument-limit';

const DEFAULT_MAX_OUTPUT_CHARS = 50_000;
/** After a kill was sent, how long to wait (beyond the grace period) before we stop reading. */
const KILL_SETTLE_MS = 5_000;
/** A command being started may not have written its pidfile yet when the kill arrives. */
const PIDFILE_WAIT_SECONDS = 3;

export interface DockerEnvironmentOptions {
  /** Time between SIGTERM and SIGKILL when a command is stopped. */
  killGraceMs: number;
  /** Said once, before the next command's output (e.g. "the container was re-created"). */
  notice?: string;
  /** The container's baseline of the host folders bound in (its label; see bound-host-folders.ts). */
  boundFolders?: string | undefined;
}

export class DockerEnvironment implements TerminalEnvironment {
  readonly workspace: DockerWorkspace;
  readonly background: BackgroundProcesses;
  private current: EnvironmentHandle;
  private notice: string | undefined;
  /** What npm, yarn or git would run from the host folders bound in, checked after each command (see bound-host-folders.ts). */
  private readonly boundFolders: BoundHostFolders;

  constructor(
    private readonly container: Docker.Container,
    handle: EnvironmentHandle,
    private readonly options: DockerEnvironmentOptions,
  ) {
    this.current = { ...handle };
    this.notice = options.notice;
    const home = typeof handle.details?.home === 'string' ? handle.details.home : '/root';
    this.boundFolders = new BoundHostFolders(options.boundFolders);
    // A package config a file tool writes into a bound folder is disarmed at once.
    this.workspace = new DockerWorkspace(container, handle.cwd, home, { onWritten: (written) => this.boundFolders.settle({ written: [written] }) });
    const stateDir = `/tmp/hermes-bg/${(handle.sessionId ?? 'default').replace(/[^A-Za-z0-9_-]/g, '_')}`;
    this.background = new ExecBackgroundProcesses((request) => this.exec(request), stateDir, Math.ceil(options.killGraceMs / 1000));
  }

  /** The handle as it is now: a `cd` in a command moves the session's cwd. */
  get handle(): EnvironmentHandle {
    return this.current;
  }

  async exec(request: ExecRequest): Promise<ExecResult> {
    const cwd = request.cwd ?? this.current.cwd;
    const notStarted = stoppedBeforeStart(request, cwd);
    if (notStarted) return notStarted;
    const execId = request.id ?? randomUUID();
    const marker = `\u001e__hermes_cwd_${randomBytes(8).toString('hex')}__`;
    const script = commandScript({ command: request.command, cwd, execId, marker, pty: Boolean(request.pty) });
    const tooLong = tooLongToStart(script, cwd);
    if (tooLong) return tooLong;
    const output = new BoundedOutput(request.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS);
    const emit = (text: string) => {
      if (!text) return;
      output.append(text);
      request.onOutput?.(text);
    };
    // A notice belongs to the model's next command, not to the process tool's bookkeeping.
    if (this.notice && request.id) {
      emit(`${this.notice}\n`);
      this.notice = undefined;
    }
    const markerFilter = new CwdMarkerFilter(marker, false);
    const decoders: Record<StreamKind, StringDecoder> = { stdout: new StringDecoder('utf8'), stderr: new StringDecoder('utf8') };

    const giveUp = new AbortController();
    let stopping = false;
    const stop = () => {
      if (stopping) return;
      stopping = true;
      // Stop reading if the kill cannot be delivered (daemon gone) or the command ignores it.
      const backstop = setTimeout(() => giveUp.abort(), this.options.killGraceMs + KILL_SETTLE_MS);
      backstop.unref();
      this.killGroup(execId, PIDFILE_WAIT_SECONDS, { discardLog: true }).catch(() => giveUp.abort());
    };
    const deadline = new ExecDeadline(request, stop);

    try {
      const exitCode = await runExec(this.container, {
        cmd: ['bash', '-c', script],
        tty: Boolean(request.pty),
        ...(request.env ? { env: request.env } : {}),
        onData: (kind, data) => {
          const text = decoders[kind].write(data);
          emit(kind === 'stdout' ? markerFilter.push(text) : text);
        },
        isFinished: () => markerFilter.found,
        giveUp: giveUp.signal,
      });
      emit(markerFilter.push(decoders.stdout.end()) + markerFilter.end() + decoders.stderr.end());
      // A model's command (the process tool's bookkeeping has no id): what it left is checked now.
      if (request.id) emit(this.boundFolders.settle());
      const concluded = deadline.conclude(output.toString(), exitCode);
      const finalCwd = markerFilter.cwd ?? cwd;
      if (request.cwd === undefined) this.current = { ...this.current, cwd: finalCwd };
      return { ...concluded, timedOut: deadline.timedOut, interrupted: deadline.interrupted, cwd: finalCwd };
    } finally {
      deadline.dispose();
    }
  }

  async killOrphan(id: string): Promise<void> {
    // The pidfile is removed when a command ends: no pidfile, nothing left to kill.
    await this.killGroup(id, 0);
  }

  /**
   * The command's wrapper logs its output in the container (see command-script.ts), so the log
   * holds everything up to the orphan's kill. PTY runs keep no log (a pipe would replace their
   * terminal): undefined, and the retry falls back to the heartbeat's output tail.
   */
  async readOrphanOutput(id: string): Promise<string | undefined> {
    const { stdout } = await captureExec(this.container, ['bash', '-c', readLogScriptFor(id)]);
    return parseLog(stdout.toString('utf8'));
  }

  async release(): Promise<void> {
    // The dockerode client belongs to the driver; nothing is held per view.
  }

  /** TERM, grace period, KILL to the command's process group, from a second exec. */
  private async killGroup(execId: string, waitForPidFileSeconds: number, options: { discardLog?: boolean } = {}): Promise<void> {
    await runExec(this.container, { cmd: ['bash', '-c', killScript(execId, this.options.killGraceMs / 1000, waitForPidFileSeconds, options)] });
  }
}
