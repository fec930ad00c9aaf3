// Starts local commands from a small helper process instead of the worker. Spawning forks the
// caller, and forking costs in proportion to its memory: 1 ms from a small process, 10-30 ms
// from a worker of a few hundred MB, during which the worker's event loop stands still. Sixteen
// parallel calls then start one after another. The helper (plain JavaScript, run with `node -e`
// so it starts the same from dist/ and from sources) spawns each command as its own process
// group with pipes, streams its output back, and exits when the worker goes away, which takes
// its sandboxed commands with it (bwrap's --die-with-parent). It also runs the short programs the
// worker itself needs (checkpoints' git: nine runs a snapshot), passing their bytes in and out.
// Without the helper, for any reason, commands are spawned here as before.
import { spawn, type ChildProcess } from 'node:child_process';

/** A started command: `pid` is also its process group; `exited` gives the exit code once output is drained. */
export interface SpawnedCommand {
  pid: number | undefined;
  exited: Promise<number>;
}

/** What a program run through the helper is given, and told as it runs (see `run`). */
export interface ProgramRun {
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Bytes written to its stdin, which is then closed. */
  input: string | Buffer;
  onStdout: (chunk: Buffer) => void;
  onStderr: (chunk: Buffer) => void;
}

/** A program started with pipes: `closed` gives its exit code (null: killed by a signal) once its output is read. */
export interface RunningProgram {
  kill: () => void;
  closed: Promise<number | null>;
}

type HelperMessage =
  | { id: number; type: 'started'; pid: number }
  | { id: number; type: 'output'; text: string }
  | { id: number; type: 'stdout' | 'stderr'; data: Uint8Array }
  | { id: number; type: 'exited'; code: number }
  | { id: number; type: 'closed'; code: number | null }
  | { id: number; type: 'error'; message: string; code?: string };

type WorkerMessage =
  | { id: number; type: 'start'; file: string; args: string[]; env: Record<string, string> }
  | { id: number; type: 'run'; file: string; args: readonly string[]; env: NodeJS.ProcessEnv; cwd: string; input: string | Buffer }
  | { id: number; type: 'kill' };

interface Pending {
  onText?: (text: string) => void;
  onBytes?: (stream: 'stdout' | 'stderr', chunk: Buffer) => void;
  started: (pid: number) => void;
  exited: (code: number | null) => void;
  failed: (error: Error) => void;
}

/** Stop reading ~300 ms after the command exits even if a grandchild still holds the pipe open. */
const HELPER_SCRIPT = `
'use strict';
const { spawn } = require('node:child_process');
const { StringDecoder } = require('node:string_decoder');
const signals = require('node:os').constants.signals;
const DRAIN_AFTER_EXIT_MS = 300;
// Signals aimed at the worker's process group are the worker's to handle; the helper goes when it goes.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => undefined);
process.on('disconnect', () => process.exit(0));
const send = (message) => { if (process.connected) process.send(message); };
const programs = new Map();
process.on('message', (message) => {
  if (message.type === 'run') return runProgram(message);
  if (message.type === 'kill') return programs.get(message.id)?.kill('SIGKILL');
  const { id, file, args, env } = message;
  let child;
  try {
    child = spawn(file, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env });
  } catch (error) {
    return send({ id, type: 'error', message: error.message, code: error.code });
  }
  child.once('error', (error) => send({ id, type: 'error', message: error.message, code: error.code }));
  if (child.pid === undefined) return;
  send({ id, type: 'started', pid: child.pid });
  const decoder = new StringDecoder('utf8');
  const onData = (data) => { const text = decoder.write(data); if (text) send({ id, type: 'output', text }); };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  let exitCode;
  let drainTimer;
  const finish = () => {
    if (drainTimer) clearTimeout(drainTimer);
    const rest = decoder.end();
    if (rest) send({ id, type: 'output', text: rest });
    send({ id, type: 'exited', code: exitCode ?? 1 });
  };
  child.once('exit', (code, signal) => {
    exitCode = code ?? (signal ? 128 + (signals[signal] ?? 0) : 1);
    drainTimer = setTimeout(() => { child.stdout.destroy(); child.stderr.destroy(); finish(); }, DRAIN_AFTER_EXIT_MS);
  });
  child.once('close', () => { if (exitCode !== undefined) finish(); });
});
// A program run for the worker: its bytes as they come, then its exit code once its pipes close.
function runProgram({ id, file, args, env, cwd, input }) {
  let child;
  try {
    child = spawn(file, args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  } catch (error) {
    return send({ id, type: 'error', message: error.message, code: error.code });
  }
  programs.set(id, child);
  child.once('error', (error) => { programs.delete(id); send({ id, type: 'error', message: error.message, code: error.code }); });
  child.stdout.on('data', (data) => send({ id, type: 'stdout', data }));
  child.stderr.on('data', (data) => send({ id, type: 'stderr', data }));
  child.stdin.on('error', () => undefined);
  child.stdin.end(input);
  child.once('close', (code) => { programs.delete(id); send({ id, type: 'closed', code }); });
}
`;

/** Resident memory above which a fork costs several times a run through the helper (3 ms from 45 MB, 8-10 from 475). */
const FORK_IS_COSTLY_ABOVE_BYTES = 200 * 1024 * 1024;

export class SmallSpawner {
  private helper?: ChildProcess;
  private broken = false;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  /** Runs `file args` in its own process group; `undefined` when the helper cannot be used. */
  start(file: string, args: string[], env: Record<string, string>, onText: (text: string) => void): Promise<SpawnedCommand> | undefined {
    const helper = this.ensureHelper();
    if (!helper) return undefined;
    const id = this.nextId++;
    return new Promise<SpawnedCommand>((resolveStarted, rejectStarted) => {
      let resolveExited!: (code: number) => void;
      let rejectExited!: (error: Error) => void;
      const exited = new Promise<number>((resolve, reject) => {
        resolveExited = resolve;
        rejectExited = reject;
      });
      let started = false;
      this.pending.set(id, {
        onText,
        started: (pid) => {
          started = true;
          resolveStarted({ pid, exited });
        },
        exited: (code) => {
          this.forget(id);
          resolveExited(code ?? 1);
        },
        failed: (error) => {
          this.forget(id);
          if (started) rejectExited(error);
          else rejectStarted(error);
        },
      });
      // While a command runs, the channel keeps this process alive (as a child's pipes would).
      if (this.pending.size === 1) this.channelOf(helper)?.ref?.();
      this.send(helper, { id, type: 'start', file, args, env });
    });
  }

  /**
   * Whether a program is better started through the helper than forked from here: the helper
   * runs already, or this process is large. A small one (a CLI command running git a few times)
   * forks in about the time a run through the helper takes, and would wait ~30 ms for it to start.
   */
  worthwhile(): boolean {
    return Boolean(this.helper?.connected) || process.memoryUsage.rss() > FORK_IS_COSTLY_ABOVE_BYTES;
  }

  /**
   * Runs `file args` with pipes (not in a group of its own), passing its output as bytes;
   * `undefined` when the helper cannot be used. The kill is SIGKILL.
   */
  run(file: string, args: readonly string[], program: ProgramRun): RunningProgram | undefined {
    const helper = this.ensureHelper();
    if (!helper) return undefined;
    const id = this.nextId++;
    const closed = new Promise<number | null>((resolve, reject) => {
      this.pending.set(id, {
        onBytes: (stream, chunk) => (stream === 'stdout' ? program.onStdout : program.onStderr)(chunk),
        started: () => undefined,
        exited: (code) => {
          this.forget(id);
          resolve(code);
        },
        failed: (error) => {
          this.forget(id);
          reject(error);
        },
      });
    });
    if (this.pending.size === 1) this.channelOf(helper)?.ref?.();
    this.send(helper, { id, type: 'run', file, args, env: program.env, cwd: program.cwd, input: program.input });
    return { closed, kill: () => this.pending.has(id) && this.send(helper, { id, type: 'kill' }) };
  }

  private send(helper: ChildProcess, message: WorkerMessage): void {
    helper.send(message, (error) => {
      if (error) this.pending.get(message.id)?.failed(error);
    });
  }

  private forget(id: number): void {
    this.pending.delete(id);
    if (!this.pending.size && this.helper) this.channelOf(this.helper)?.unref?.();
  }

  private channelOf(helper: ChildProcess): { ref?: () => void; unref?: () => void } | undefined {
    return helper.channel as { ref?: () => void; unref?: () => void } | undefined;
  }

  /** Commands and programs started through the helper that have not ended yet. */
  get inFlight(): number {
    return this.pending.size;
  }

  /** Stops the helper (its commands' sandboxes die with it). */
  close(): void {
    this.helper?.disconnect();
    this.helper = undefined;
  }

  private ensureHelper(): ChildProcess | undefined {
    if (this.broken) return undefined;
    if (this.helper?.connected) return this.helper;
    try {
      // 'advanced': bytes cross the channel as bytes, not as JSON arrays of numbers.
      const helper = spawn(process.execPath, ['-e', HELPER_SCRIPT], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], env: {}, serialization: 'advanced' });
      helper.on('message', (message: HelperMessage) => this.receive(message));
      helper.once('exit', () => this.lost(helper));
      helper.once('error', () => this.lost(helper));
      // The worker may exit while the helper idles.
      helper.unref();
      this.channelOf(helper)?.unref?.();
      this.helper = helper;
      return helper;
    } catch {
      this.broken = true;
      return undefined;
    }
  }

  private receive(message: HelperMessage): void {
    const pending = this.pending.get(message.id);
    if (!pending) return;
    if (message.type === 'started') pending.started(message.pid);
    else if (message.type === 'output') pending.onText?.(message.text);
    else if (message.type === 'stdout' || message.type === 'stderr') pending.onBytes?.(message.type, Buffer.from(message.data.buffer, message.data.byteOffset, message.data.byteLength));
    else if (message.type === 'exited' || message.type === 'closed') pending.exited(message.code);
    else if (message.type === 'error') pending.failed(Object.assign(new Error(message.message), message.code ? { code: message.code } : {}));
  }

  /** A helper that died took its commands with it: say so to each waiting caller. */
  private lost(helper: ChildProcess): void {
    if (this.helper === helper) this.helper = undefined;
    for (const pending of this.pending.values()) pending.failed(new Error('the process that started this command exited'));
    this.pending.clear();
  }
}

/** One helper per worker process. */
export const smallSpawner = new SmallSpawner();
