// One `docker exec` from start to exit code: demultiplexes the attached stream (or passes a TTY's
// raw bytes through), feeds optional stdin, and reads the exit code from `exec.inspect()` (the
// stream carries none). Failures before the process starts become BackendUnavailableError.
import type { Duplex } from 'node:stream';
import type Docker from 'dockerode';
import { asUnavailable } from './docker-errors';

export type StreamKind = 'stdout' | 'stderr';

export interface RunExecOptions {
  cmd: string[];
  /** Run under a TTY: one raw stream (reported as stdout), no demultiplexing. */
  tty?: boolean;
  env?: Record<string, string>;
  workingDir?: string;
  /** Bytes written to the process's stdin, which is then closed. */
  input?: Buffer;
  /** Output in arrival order. */
  onData?: (kind: StreamKind, data: Buffer) => void;
  /**
   * Consulted after each chunk: true once the command has said its last word, so a grandchild
   * that still holds the pipe open does not keep us waiting for the daemon's drain timeout.
   */
  isFinished?: () => boolean;
  /** Stop reading and return whatever exit code the daemon has (the command may still run). */
  giveUp?: AbortSignal;
}

const HEADER_BYTES = 8;
/** How long to keep reading after the process exited while something else holds the pipe. */
const DRAIN_AFTER_EXIT_MS = 300;
const INSPECT_INTERVAL_MS = 25;
const INSPECT_PATIENCE_MS = 10_000;

/** Splits Docker's multiplexed stream (8-byte header: type, 3 zero bytes, big-endian length). */
export class FrameDemuxer {
  private pending: Buffer = Buffer.alloc(0);

  constructor(private readonly onFrame: (kind: StreamKind, data: Buffer) => void) {}

  push(chunk: Buffer): void {
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    while (this.pending.length >= HEADER_BYTES) {
      const length = this.pending.readUInt32BE(4);
      if (this.pending.length < HEADER_BYTES + length) return;
      const kind: StreamKind = this.pending[0] === 2 ? 'stderr' : 'stdout';
      const data = this.pending.subarray(HEADER_BYTES, HEADER_BYTES + length);
      this.pending = this.pending.subarray(HEADER_BYTES + length);
      if (length > 0) this.onFrame(kind, data);
    }
  }
}

/** Runs `options.cmd` in `container` and resolves with its exit code (-1 if the daemon has none). */
export async function runExec(container: Docker.Container, options: RunExecOptions): Promise<number> {
  const tty = Boolean(options.tty);
  let exec: Docker.Exec;
  let stream: Duplex;
  try {
    exec = await container.exec({
      Cmd: options.cmd,
      AttachStdin: options.input !== undefined,
      AttachStdout: true,
      AttachStderr: true,
      Tty: tty,
      ...(options.env ? { Env: Object.entries(options.env).map(([name, value]) => `${name}=${value}`) } : {}),
      ...(options.workingDir ? { WorkingDir: options.workingDir } : {}),
    });
    stream = await exec.start({ hijack: true, stdin: options.input !== undefined, Tty: tty });
  } catch (error) {
    throw asUnavailable(error, 'starting a command');
  }

  const demuxer = new FrameDemuxer((kind, data) => options.onData?.(kind, data));
  let exited: Promise<number | null> | undefined;
  await new Promise<void>((resolve, reject) => {
    let drainTimer: NodeJS.Timeout | undefined;
    const finish = () => {
      if (drainTimer) clearTimeout(drainTimer);
      options.giveUp?.removeEventListener('abort', finish);
      stream.destroy();
      resolve();
    };
    // Once the command is done, the process exits within moments; stop waiting for the pipe then.
    const watchExit = () => {
      if (exited || !options.isFinished?.()) return;
      exited = waitUntilExited(exec);
      exited.then(() => (drainTimer = setTimeout(finish, DRAIN_AFTER_EXIT_MS)), () => undefined);
    };
    stream.on('data', (chunk: Buffer) => {
      if (tty) options.onData?.('stdout', chunk);
      else demuxer.push(chunk);
      watchExit();
    });
    stream.once('end', finish);
    stream.once('close', finish);
    stream.once('error', (error) => {
      if (drainTimer) clearTimeout(drainTimer);
      options.giveUp?.removeEventListener('abort', finish);
      reject(error);
    });
    if (options.giveUp?.aborted) finish();
    else options.giveUp?.addEventListener('abort', finish, { once: true });
    if (options.input !== undefined) stream.end(options.input);
  });
  const code = await (exited ?? waitUntilExited(exec, options.giveUp?.aborted ? 0 : INSPECT_PATIENCE_MS));
  return code ?? -1;
}

/** The exit code once the daemon says the process is no longer running (null if it never says). */
async function waitUntilExited(exec: Docker.Exec, patienceMs = INSPECT_PATIENCE_MS): Promise<number | null> {
  const deadline = Date.now() + patienceMs;
  for (;;) {
    const info = await exec.inspect();
    if (!info.Running) return info.ExitCode;
    if (Date.now() >= deadline) return null;
    await new Promise((resolve) => setTimeout(resolve, INSPECT_INTERVAL_MS));
  }
}

export interface CapturedExec {
  exitCode: number;
  stdout: Buffer;
  stderr: string;
}

/** What a short command's stderr may add to the worker's memory (error messages). */
const MAX_CAPTURED_STDERR_BYTES = 64 * 1024;
/** A short command's stdout when its caller sets no limit (probes, pid and log reads). */
const DEFAULT_MAX_CAPTURED_STDOUT_BYTES = 16 * 1024 * 1024;
/** As long as the exec-based backends give a file command: a 16 MiB read or a bounded walk takes seconds. */
const DEFAULT_CAPTURE_TIMEOUT_MS = 120_000;

export interface CaptureOptions {
  /** Bytes written to the command's stdin, which is then closed. */
  input?: Buffer;
  maxStdoutBytes?: number;
  timeoutMs?: number;
}

/**
 * Runs a short command and keeps its stdout as bytes (binary-safe) and stderr as text, each
 * bounded: what the container prints is the agent's to choose, the worker's memory is not.
 * Past `maxStdoutBytes` the rest is dropped and the stream closed (the command gets SIGPIPE).
 * Past `timeoutMs` the worker stops waiting and throws an ETIMEDOUT error: the container's own
 * programs are the agent's to replace, and one that never ends must not hold a tool call for the
 * activity's timeout and its retries. What still runs stays in the container, which ends with the session.
 */
export async function captureExec(container: Docker.Container, cmd: string[], options: CaptureOptions = {}): Promise<CapturedExec> {
  const { input, maxStdoutBytes = DEFAULT_MAX_CAPTURED_STDOUT_BYTES, timeoutMs = DEFAULT_CAPTURE_TIMEOUT_MS } = options;
  const stdout = new CappedBytes(maxStdoutBytes);
  const stderr = new CappedBytes(MAX_CAPTURED_STDERR_BYTES);
  const stop = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    stop.abort();
  }, timeoutMs);
  let exitCode: number;
  try {
    exitCode = await runExec(container, {
      cmd,
      ...(input !== undefined ? { input } : {}),
      onData: (kind, data) => {
        if (!(kind === 'stdout' ? stdout : stderr).add(data) && kind === 'stdout') stop.abort();
      },
      giveUp: stop.signal,
    });
  } finally {
    clearTimeout(timer);
  }
  if (timedOut) throw execTimedOut(cmd, timeoutMs);
  return { exitCode, stdout: stdout.bytes(), stderr: stderr.bytes().toString('utf8') };
}

function execTimedOut(cmd: string[], timeoutMs: number): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`'${cmd[0]}' in the container did not finish within ${Math.round(timeoutMs / 1000)} s`);
  error.code = 'ETIMEDOUT';
  return error;
}

/** The first `limit` bytes of a stream. */
class CappedBytes {
  private readonly chunks: Buffer[] = [];
  private length = 0;

  constructor(private readonly limit: number) {}

  /** Keeps what fits; false once something had to be dropped. */
  add(data: Buffer): boolean {
    const room = this.limit - this.length;
    if (room <= 0) return false;
    const kept = data.length > room ? data.subarray(0, room) : data;
    this.chunks.push(Buffer.from(kept));
    this.length += kept.length;
    return kept.length === data.length;
  }

  bytes(): Buffer {
    return Buffer.concat(this.chunks, this.length);
  }
}
