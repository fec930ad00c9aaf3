// Local background processes under a pseudo-terminal (node-pty). The terminal lives in this
// worker's memory, so these processes do not survive a worker restart; what does survive is on
// disk beside the file-backed processes (`<stateDir>/pty/<id>.json|.log|.exit`), so a later worker
// can still show their output and say that they were lost.
import { createWriteStream, type WriteStream } from 'node:fs';
import { access, mkdir, open, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { once } from 'node:events';
import { shellQuote } from '../shell-quote';
import { shellExitCode, spawnInPty, type PtyChild } from '../local-pty';
import type { BackgroundProcessInfo, BackgroundStartRequest } from '../terminal-environment';
import { newProcessId } from './exec-background-processes';
import { selectLines, selectLinesFromFile } from './log-lines';
import { cappedWriter, quotaFor } from './log-budget';
import { groupEmptyWithin } from '../process-group';
import { terminalReaderFolder } from './terminal-reader-folder';

/** The original's rolling output buffer. */
export const MAX_PTY_OUTPUT_CHARS = 200_000;
/** Exited processes stay in memory this long; afterwards they are read back from disk. */
const FINISHED_TTL_MS = 30 * 60_000;
/** Exit code recorded for a process stopped by `kill` (the original's SIGTERM marker). */
const KILLED_EXIT_CODE = -15;
/** ^D: end-of-file for a program reading the terminal. */
const END_OF_TRANSMISSION = '\u0004';

/** Turns a script into the program to run for it (the sandbox's launcher); bare bash without one. */
export type PtyLauncher = (script: string, cwd: string) => { file: string; args: string[] };

type ProcessMeta = Omit<BackgroundProcessInfo, 'status' | 'exitCode' | 'detached'>;

interface RecentOutput {
  /** The last MAX_PTY_OUTPUT_CHARS of output. */
  text: string;
  /** True once `text` no longer holds everything (the log file still does). */
  trimmed: boolean;
}

interface LiveProcess {
  meta: ProcessMeta;
  stateDir: string;
  child: PtyChild;
  output: RecentOutput;
  exitCode?: number;
  killed: boolean;
  /** Resolves once the exit code is recorded and the log is complete on disk. */
  finished: Promise<void>;
}

/**
 * The PTY processes of this worker, for every session (each keyed by its environment's state
 * directory). One instance per worker: the terminals are live objects that cannot be rebuilt.
 */
export class LocalPtyProcesses {
  private readonly live = new Map<string, LiveProcess>();

  /** @param logBudgetBytes what the session's background logs may hold together (see log-budget.ts); no limit without */
  async start(stateDir: string, request: BackgroundStartRequest, env: Record<string, string>, launcher?: PtyLauncher, logBudgetBytes?: number): Promise<BackgroundProcessInfo> {
    const directory = ptyDirectory(stateDir);
    await mkdir(directory, { recursive: true });
    const id = newProcessId();
    const files = filesOf(stateDir, id);
    const log = createWriteStream(files.log, { flags: 'a' });
    await once(log, 'open');
    let toLog: (text: string) => void = (text) => {
      log.write(text);
    };
    if (logBudgetBytes !== undefined) {
      const quota = await quotaFor(stateDir, logBudgetBytes);
      await writeFile(path.join(directory, `${id}.quota`), String(quota));
      toLog = cappedWriter(toLog, quota, logBudgetBytes);
    }
    const script = `builtin cd -- ${shellQuote(request.cwd)} || exit 126\neval ${shellQuote(request.command)}`;
    const output: RecentOutput = { text: '', trimmed: false };
    let child: PtyChild;
    try {
      const argv = launcher ? launcher(script, request.cwd) : { file: 'bash', args: ['-c', script] };
      child = spawnInPty(argv, env, request.cwd, (text) => {
        toLog(text);
        append(output, text);
      });
    } catch (error) {
      log.destroy();
      throw error;
    }
    const meta: ProcessMeta = {
      id,
      command: request.command,
      cwd: request.cwd,
      pid: child.pid,
      startedAt: new Date().toISOString(),
      pty: true,
      notifyOnComplete: Boolean(request.notifyOnComplete),
    };
    const entry: LiveProcess = { meta, stateDir, child, output, killed: false, finished: Promise.resolve() };
    entry.finished = this.recordExit(entry, log, files.exit);
    this.live.set(id, entry);
    await writeFile(files.meta, JSON.stringify(meta));
    return this.describe(entry);
  }

  /** True when `id` is a PTY process of this state directory (running here, or on disk). */
  async owns(stateDir: string, id: string): Promise<boolean> {
    if (!isProcessId(id)) return false;
    if (this.live.get(id)?.stateDir === stateDir) return true;
    return access(filesOf(stateDir, id).meta).then(
      () => true,
      () => false,
    );
  }

  async list(stateDir: string): Promise<BackgroundProcessInfo[]> {
    const names = await readdir(ptyDirectory(stateDir)).catch(() => [] as string[]);
    const ids = names.filter((name) => name.endsWith('.json')).map((name) => name.slice(0, -'.json'.length));
    const infos = await Promise.all(ids.filter(isProcessId).map((id) => this.info(stateDir, id)));
    return infos.filter((info): info is BackgroundProcessInfo => info !== undefined);
  }

  async poll(stateDir: string, id: string, tailChars: number): Promise<{ info: BackgroundProcessInfo; outputTail: string } | undefined> {
    const entry = this.find(stateDir, id);
    if (entry) return { info: this.describe(entry), outputTail: tail(entry.output.text, tailChars) };
    const info = await this.info(stateDir, id);
    return info && { info, outputTail: await readTail(filesOf(stateDir, id).log, tailChars) };
  }

  async log(stateDir: string, id: string, offset: number, limit: number): Promise<{ info: BackgroundProcessInfo; output: string; totalLines: number } | undefined> {
    const entry = this.find(stateDir, id);
    if (entry && !entry.output.trimmed) return { info: this.describe(entry), ...selectLines(entry.output.text, offset, limit) };
    const info = entry ? this.describe(entry) : await this.info(stateDir, id);
    return info && { info, ...(await selectLinesFromFile(filesOf(stateDir, id).log, offset, limit)) };
  }

  async wait(stateDir: string, id: string, timeoutMs: number, signal?: AbortSignal): Promise<{ info: BackgroundProcessInfo; outputTail: string } | undefined> {
    const entry = this.find(stateDir, id);
    if (entry && entry.exitCode === undefined) await settledWithin(entry.finished, timeoutMs, signal);
    return this.poll(stateDir, id, 2000);
  }

  /** Where the shell reading this terminal is now (terminal-reader-folder.ts), while it runs here. */
  async inputFolder(stateDir: string, id: string): Promise<string | undefined> {
    const entry = this.find(stateDir, id);
    // The terminal's program leads its session: node-pty starts it in one of its own.
    return entry && entry.exitCode === undefined ? terminalReaderFolder(entry.child.pid) : undefined;
  }

  /**
   * TERM to the process group, KILL after `graceMs` to whatever of the group is left. The leader's
   * exit is not enough: a sandbox still starting when the TERM came forks its command afterwards,
   * and its namespace's init ignores TERM.
   */
  async kill(stateDir: string, id: string, graceMs: number): Promise<BackgroundProcessInfo | undefined> {
    const entry = this.find(stateDir, id);
    if (!entry) return this.info(stateDir, id);
    const { pid } = entry.meta;
    if (entry.exitCode === undefined && pid) {
      entry.killed = true;
      signalGroup(pid, 'SIGTERM');
      const deadline = Date.now() + graceMs;
      const leaderGone = await settledWithin(entry.finished, graceMs);
      // While the group has live members, its id cannot name another group.
      if (!leaderGone || !(await groupEmptyWithin(pid, deadline - Date.now()))) {
        signalGroup(pid, 'SIGKILL');
        await settledWithin(entry.finished, 5000);
      }
    }
    return this.describe(entry);
  }

  async write(stateDir: string, id: string, data: string): Promise<void> {
    this.requireRunning(stateDir, id).child.write(data);
  }

  /** Sends ^D, the terminal's end-of-file (the terminal itself stays open). */
  async closeStdin(stateDir: string, id: string): Promise<void> {
    this.requireRunning(stateDir, id).child.write(END_OF_TRANSMISSION);
  }

  private find(stateDir: string, id: string): LiveProcess | undefined {
    const entry = this.live.get(id);
    return entry?.stateDir === stateDir ? entry : undefined;
  }

  private requireRunning(stateDir: string, id: string): LiveProcess {
    const entry = this.find(stateDir, id);
    if (entry && entry.exitCode === undefined) return entry;
    throw new Error(
      entry
        ? 'Process stdin not available (the process exited)'
        : 'Process stdin not available: the worker that started this PTY process has restarted, and PTY processes do not survive that',
    );
  }

  private async recordExit(entry: LiveProcess, log: WriteStream, exitFile: string): Promise<void> {
    const status = await entry.child.exited;
    log.end();
    await once(log, 'close').catch(() => undefined);
    entry.exitCode = entry.killed ? KILLED_EXIT_CODE : shellExitCode(status);
    await writeFile(exitFile, String(entry.exitCode)).catch(() => undefined);
    // Memory is for running processes; the disk keeps the rest.
    setTimeout(() => this.live.delete(entry.meta.id), FINISHED_TTL_MS).unref();
  }

  private describe(entry: LiveProcess): BackgroundProcessInfo {
    const { exitCode } = entry;
    return { ...entry.meta, status: exitCode === undefined ? 'running' : 'exited', ...(exitCode === undefined ? {} : { exitCode }) };
  }

  /**
   * From disk, for a process this worker does not hold: exited with its code, or (no exit file)
   * exited with no exit code and `detached`: its worker restarted while it ran, so it was lost.
   */
  private async info(stateDir: string, id: string): Promise<BackgroundProcessInfo | undefined> {
    const entry = this.find(stateDir, id);
    if (entry) return this.describe(entry);
    if (!isProcessId(id)) return undefined;
    const files = filesOf(stateDir, id);
    const meta = await readFile(files.meta, 'utf8').then((text) => JSON.parse(text) as ProcessMeta, () => undefined);
    if (!meta) return undefined;
    const exit = Number.parseInt(await readFile(files.exit, 'utf8').catch(() => ''), 10);
    return Number.isInteger(exit) ? { ...meta, status: 'exited', exitCode: exit } : { ...meta, status: 'exited', detached: true };
  }
}

function append(output: RecentOutput, text: string): void {
  output.text += text;
  if (output.text.length > MAX_PTY_OUTPUT_CHARS) {
    output.text = output.text.slice(-MAX_PTY_OUTPUT_CHARS);
    output.trimmed = true;
  }
}

function tail(text: string, chars: number): string {
  return chars > 0 ? text.slice(-chars) : '';
}

/** The last `chars` characters of a file, reading only its end. */
async function readTail(file: string, chars: number): Promise<string> {
  if (chars <= 0) return '';
  const handle = await open(file, 'r').catch(() => undefined);
  if (!handle) return '';
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, chars * 4);
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, size - length);
    return tail(buffer.toString('utf8').replace(/^[\uFFFD]+/, ''), chars);
  } finally {
    await handle.close();
  }
}

/** True when `promise` settled within `ms` (false on timeout or abort). */
async function settledWithin(promise: Promise<unknown>, ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return false;
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, ms));
    onAbort = () => resolve(false);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([promise.then(() => true as const), stopped]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

function isProcessId(id: string): boolean {
  return /^proc_[0-9a-f]{12}$/.test(id);
}

function ptyDirectory(stateDir: string): string {
  return path.join(stateDir, 'pty');
}

function filesOf(stateDir: string, id: string) {
  const base = path.join(ptyDirectory(stateDir), id);
  return { meta: `${base}.json`, log: `${base}.log`, exit: `${base}.exit` };
}
