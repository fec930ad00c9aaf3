// The local backend: each command is `bash -c` inside the local sandbox (local-sandbox.ts), in its
// own process group and PID namespace, so a timeout or a cancellation kills everything the command
// started. Commands see an allowlisted environment. With `pty` a command runs under a
// pseudo-terminal (node-pty) instead of pipes.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, constants, mkdirSync, openSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { lstat, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { BoundedOutput } from './bounded-output';
import { CommandLog, takeCommandLog } from './command-log';
import { DEFAULT_BACKGROUND_LOG_TOTAL_MB } from './background/log-budget';
import { LocalWorkspace } from './local-workspace';
import { sanitizeEnvironment } from './sanitize-env';
import { shellQuote } from './shell-quote';
import { ExecBackgroundProcesses } from './background/exec-background-processes';
import { LocalBackgroundProcesses } from './background/local-background-processes';
import { LocalPtyProcesses } from './background/local-pty-processes';
import { shellExitCode, spawnInPty } from './local-pty';
import type { BackgroundProcesses, EnvironmentHandle, ExecRequest, ExecResult, InteractiveCommand, TerminalEnvironment } from './terminal-environment';
import { ExecDeadline, stoppedBeforeStart } from './exec-deadline';
import { tooLongToStart } from './argument-limit';
import { disarmNewNestedRepositories, disarmRepository, noteUnguardedStart, unguardedWorkspace } from './git-control';
import { describeRemovals, watchFolder } from './folder-watch';
import { gitDirectoryOf } from './git-repositories';
import { nestedRepositoriesRecord, readNestedRepositories } from './nested-repositories';
import { LocalSandbox, type SandboxCommand } from './local-sandbox';
import { BASELINE_FILE, disarmPackageConfigs, readPackageConfigBaseline, recordPackageConfigBaseline } from './package-config-guard';
import { trackCommandGroup } from './running-commands';
import { trustedProgram, trustedSearchPath } from './trusted-programs';
import { smallSpawner } from './small-spawner';
import { realOrSelf } from './path-within';
import { BACKGROUND_FOLDER, COMMAND_FILES_FOLDER } from './runtime-temp-folders';
import { recordLiveWorkspace } from './live-workspaces';

export interface LocalEnvironmentOptions {
  /** Secret-looking variables that commands may still see. */
  envPassthrough?: readonly string[];
  /** Time between SIGTERM and SIGKILL when a command is stopped. */
  killGraceMs?: number;
  /** Where PTY background processes live; defaults to this worker's shared set. */
  ptyProcesses?: LocalPtyProcesses;
  /** What commands run in; defaults to the sandbox with default settings. */
  sandbox?: LocalSandbox;
  /** What the session's background logs may hold together on the host, MiB (default DEFAULT_BACKGROUND_LOG_TOTAL_MB). */
  backgroundLogTotalMb?: number;
}

/** The sandbox of environments made without one: shared, so the start-up probe runs once. */
let defaultSandbox: LocalSandbox | undefined;

const DEFAULT_MAX_OUTPUT_CHARS = 50_000;
/** Appears in every wrapper script, so a pid can be recognised as ours. */
const WRAPPER_MARKER = '__hermes_exit';
/** Stop reading ~300 ms after bash exits even if a grandchild still holds the pipe open. */
const DRAIN_AFTER_EXIT_MS = 300;
/** Linux's PATH_MAX: no directory a command ends in has a longer name. */
const PATH_MAX_BYTES = 4096;

export class LocalEnvironment implements TerminalEnvironment {
  readonly workspace: LocalWorkspace;
  readonly background: BackgroundProcesses;
  readonly sandbox: LocalSandbox;
  private current: EnvironmentHandle;
  /** The one folder commands may write: where the session started, wherever `cd` went since. */
  private readonly workspaceRoot: string;
  private readonly sessionKey: string;
  private nested?: string[];

  constructor(
    handle: EnvironmentHandle,
    private readonly options: LocalEnvironmentOptions = {},
  ) {
    this.current = { ...handle };
    this.sandbox = options.sandbox ?? (defaultSandbox ??= new LocalSandbox());
    // A file tool writes from the worker, outside the sandbox: a package config it writes is disarmed at once.
    this.workspace = new LocalWorkspace(handle.cwd, (written) => {
      if (this.sandbox.state().active) disarmPackageConfigs(readPackageConfigBaseline(localBackgroundStateDir(this.sessionKey)), { written: [written] });
    });
    const recorded = handle.details?.workspace;
    this.workspaceRoot = typeof recorded === 'string' ? recorded : handle.cwd;
    this.sessionKey = sessionKeyOf(handle);
    // Other sessions whose workspace holds this one keep out of it while it lives (live-workspaces.ts).
    recordLiveWorkspace(this.sessionKey, realOrSelf(this.workspaceRoot));
    const stateDir = localBackgroundStateDir(this.sessionKey);
    // Before any tool of the session writes: what npm and yarn read there now is the user's.
    if (this.sandbox.state().active) recordPackageConfigBaseline(stateDir, this.workspaceRoot);
    const killGraceMs = options.killGraceMs ?? 2000;
    // The control scripts are ours (the command is only quoted data in them) and run outside; the
    // runner starts the command itself in the sandbox, detached from this worker.
    const logBudgetBytes = (options.backgroundLogTotalMb ?? DEFAULT_BACKGROUND_LOG_TOTAL_MB) * 1024 * 1024;
    const files = new ExecBackgroundProcesses(
      (request) => this.run(request, false),
      stateDir,
      Math.ceil(killGraceMs / 1000),
      (command, cwd) => this.sandbox.shellWords(`builtin cd -- ${shellQuote(cwd)} || exit 126\neval ${shellQuote(command)}`, this.runOptions(cwd)),
      logBudgetBytes,
    );
    this.background = new LocalBackgroundProcesses(
      files,
      options.ptyProcesses ?? new LocalPtyProcesses(),
      stateDir,
      () => sanitizeEnvironment(process.env, options.envPassthrough),
      killGraceMs,
      (script, cwd) => this.sandbox.command(script, this.runOptions(cwd)),
      () => {
        if (this.sandbox.state().active) noteUnguardedStart(stateDir, this.workspaceRoot);
      },
      logBudgetBytes,
    );
  }

  /**
   * Stops what the session runs in the background; then disarms a repository one of those
   * processes may have created, since none of them had its hooks and config read-only.
   */
  async stopBackground(): Promise<void> {
    // Read first: stopping removes the session's state folder. The marker names the workspace,
    // which a session abandoned by its `run` knows only through it.
    const stateDir = localBackgroundStateDir(this.sessionKey);
    const workspace = unguardedWorkspace(stateDir);
    const nested = readNestedRepositories(stateDir);
    const packageConfigs = readPackageConfigBaseline(stateDir);
    await this.background.stopAll?.();
    const created = workspace && gitDirectoryOf(workspace);
    if (workspace && created) disarmRepository(realOrSelf(workspace), realOrSelf(created), new Set());
    // Nested repositories the session made had nothing read-only at all.
    if (nested) disarmNewNestedRepositories(realOrSelf(this.workspaceRoot), nested);
    // Those in subfolders the session's commands made are looked for once, now.
    disarmPackageConfigs(packageConfigs, { everywhere: true });
  }

  /** The handle as it is now: a `cd` in a command moves the session's cwd. */
  get handle(): EnvironmentHandle {
    return this.current;
  }

  exec(request: ExecRequest): Promise<ExecResult> {
    return this.run(request, true);
  }

  interactiveCommand(script: string, env: Record<string, string> = {}): InteractiveCommand {
    const cwd = this.handle.cwd;
    const argv = this.sandbox.command(`builtin cd -- ${shellQuote(cwd)} || exit 126\n${script}`, this.runOptions(cwd));
    // A script writes the workspace as a command does: what it leaves is checked the same way.
    const settle = this.watchWorkspace();
    return { ...argv, env: { ...sanitizeEnvironment(process.env, this.options.envPassthrough), ...env }, settle };
  }

  /**
   * Call before a sandboxed process starts; the function it returns, once the process has ended,
   * disarms what it left that git, npm or yarn would run outside the sandbox (folder-watch.ts) and
   * returns the note for its output.
   */
  private watchWorkspace(): () => string {
    if (!this.sandbox.state().active) return () => '';
    const stateDir = localBackgroundStateDir(this.sessionKey);
    const settle = watchFolder(realOrSelf(this.workspaceRoot), this.nestedRepositories(), {
      // A background process started with no repository to guard may have made one at any time.
      unguarded: () => unguardedWorkspace(stateDir) !== undefined,
      packageConfigs: () => readPackageConfigBaseline(stateDir),
    });
    return () => describeRemovals(settle());
  }

  private runOptions(cwd: string, wrapperFiles: string[] = []) {
    return { workspace: this.workspaceRoot, cwd, wrapperFiles, sessionKey: this.sessionKey, nestedRepositories: this.nestedRepositories() };
  }

  /** The repositories nested in the workspace before the session's first command here (none unsandboxed). */
  private nestedRepositories(): string[] {
    if (!this.sandbox.state().active) return [];
    this.nested ??= nestedRepositoriesRecord(localBackgroundStateDir(this.sessionKey), realOrSelf(this.workspaceRoot)).workTrees;
    return this.nested;
  }

  private async run(request: ExecRequest, sandboxed: boolean): Promise<ExecResult> {
    const cwd = request.cwd ?? this.handle.cwd;
    const notStarted = stoppedBeforeStart(request, cwd);
    if (notStarted) return notStarted;
    const cwdFile = path.join(os.tmpdir(), `${CWD_FILE_PREFIX}${randomUUID()}`);
    const script = wrapCommand(request.command, cwd, cwdFile);
    const tooLong = tooLongToStart(script, cwd);
    if (tooLong) return tooLong;
    const output = new BoundedOutput(request.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS);
    // Outside the sandbox (our own control scripts) no variable may change what bash itself runs,
    // and every program the script names comes from the trusted PATH, never from the workspace.
    const outside = { outside: [this.workspaceRoot] };
    const extra = sandboxed ? request.env : { ...withoutShellHooks(request.env), PATH: trustedSearchPath(outside) };
    const env = { ...sanitizeEnvironment(process.env, this.options.envPassthrough), ...extra };
    // The sandbox's /tmp is its own: the cwd file exists first, so it can be bound in. This file,
    // the pidfile and the log are the worker's own, in its temporary folder: written synchronously,
    // as each is a syscall of microseconds where the asynchronous calls queue for libuv's threads.
    if (sandboxed) writeFileSync(cwdFile, '', { mode: 0o600 });
    const argv = sandboxed ? this.sandbox.command(script, this.runOptions(cwd, [cwdFile])) : { file: trustedProgram('bash', outside), args: ['-c', script] };
    const settle = sandboxed ? this.watchWorkspace() : () => '';

    const pidFile = request.id ? pidFileFor(request.id) : undefined;
    if (pidFile) mkdirSync(path.dirname(pidFile), { recursive: true });
    // Beside the pidfile: if this worker dies, the retry reads what the command printed so far.
    const log = request.id ? CommandLog.create(logFileFor(request.id)) : undefined;
    const onText = (text: string) => {
      output.append(text);
      log?.append(text);
      request.onOutput?.(text);
    };
    const child = request.pty ? startInPty(argv, env, onText) : await startWithPipes(argv, env, onText);
    // Listen for the exit before the first await: a quick command can finish in between.
    child.exited.catch(() => undefined); // handled where it is awaited below
    if (pidFile && child.pid) writeFileSync(pidFile, String(child.pid));

    const deadline = new ExecDeadline(request, () => killProcessGroup(child.pid, this.options.killGraceMs ?? 1000));
    try {
      const code = await child.exited;
      const note = settle();
      const concluded = deadline.conclude(output.toString(), code);
      const exitCode = concluded.exitCode;
      const text = concluded.output + note;
      const finalCwd = recordedCwd(readCwdFile(cwdFile)) ?? cwd;
      if (request.cwd === undefined) this.current = { ...this.current, cwd: finalCwd };
      return { output: text, exitCode, timedOut: deadline.timedOut, interrupted: deadline.interrupted, cwd: finalCwd };
    } finally {
      deadline.dispose();
      rmSync(cwdFile, { force: true });
      if (pidFile) rmSync(pidFile, { force: true });
      log?.remove();
    }
  }

  async killOrphan(id: string): Promise<void> {
    const pidFile = pidFileFor(id);
    const pid = Number(await readFile(pidFile, 'utf8').catch(() => ''));
    await rm(pidFile, { force: true });
    // Only if the pid still runs our wrapper: pids get reused.
    if (await runsOurWrapper(pid)) killProcessGroup(pid, 0);
  }

  /**
   * The log is written by the worker that read the command's output, synchronously, so it holds
   * everything up to that worker's death; the command itself dies with the worker (the sandbox's
   * --die-with-parent), so nothing later is missing.
   */
  readOrphanOutput(id: string): Promise<string | undefined> {
    return takeCommandLog(logFileFor(id));
  }

  async release(): Promise<void> {
    // Nothing else is held between commands on the local backend.
    this.sandbox.releaseSession(this.sessionKey);
  }
}

/**
 * Where the command ended, as its wrapper wrote it: at most a path's length is read, never
 * through a link, and never waiting (a command could leave a FIFO or a huge file in its place).
 */
function readCwdFile(file: string): string {
  let descriptor: number | undefined;
  try {
    descriptor = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    const buffer = Buffer.alloc(PATH_MAX_BYTES);
    return buffer.toString('utf8', 0, readSync(descriptor, buffer, 0, buffer.length, 0));
  } catch {
    return '';
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
}

/** The directory the wrapper recorded, if what the file holds is one (a killed wrapper leaves whatever the command wrote there). */
function recordedCwd(text: string): string | undefined {
  const line = text.trim();
  return /^\/[^\0\n]*$/.test(line) ? line : undefined;
}

/** Variables that make bash or the loader run code of their own (BASH_ENV, LD_PRELOAD, ...). */
function withoutShellHooks(env: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!env) return env;
  return Object.fromEntries(Object.entries(env).filter(([name]) => !/^(BASH_ENV|ENV|SHELLOPTS|BASHOPTS|PS4|LD_.*|BASH_FUNC_.*)$/.test(name)));
}

/** The file-name-safe session name for state directories and the session's process cap. */
export function sessionKeyOf(handle: Pick<EnvironmentHandle, 'sessionId'>): string {
  return (handle.sessionId ?? 'default').replace(/[^A-Za-z0-9_-]/g, '_');
}

/** The folder of a session's background process files on this machine. */
export function localBackgroundStateDir(sessionKey: string): string {
  return path.join(os.tmpdir(), BACKGROUND_FOLDER, sessionKey);
}

/** Where a running command's process-group id is kept, so a later worker can find it. */
function pidFileFor(id: string): string {
  return path.join(commandFilesDir(), `${id.replace(/[^A-Za-z0-9_.-]/g, '_')}.pid`);
}

function commandFilesDir(): string {
  return path.join(os.tmpdir(), COMMAND_FILES_FOLDER);
}

const CWD_FILE_PREFIX = 'hermes-cwd-';
/** Older than this, a command's files belong to no command that can still run or be retried. */
const STALE_COMMAND_FILE_MS = 24 * 60 * 60 * 1000;

/**
 * Removes what foreground commands of workers that died (or quit at once) left behind: their pid
 * and log files and the files their wrappers recorded the directory in; and the state folders
 * of sessions long over that hold nothing else than their package-config baseline. Returns how many went.
 */
export async function sweepStaleCommandFiles(now = Date.now()): Promise<number> {
  const inFolder = async (directory: string, keep: (name: string) => boolean) =>
    (await readdir(directory).catch(() => [] as string[])).filter(keep).map((name) => path.join(directory, name));
  const candidates = [...(await inFolder(commandFilesDir(), () => true)), ...(await inFolder(os.tmpdir(), (name) => name.startsWith(CWD_FILE_PREFIX)))];
  let removed = 0;
  for (const file of candidates) {
    const info = await lstat(file).catch(() => undefined);
    if (!info?.isFile() || now - info.mtimeMs < STALE_COMMAND_FILE_MS) continue;
    // A command still running (an hour-long build, say) keeps its pid file.
    if (file.endsWith('.pid') && (await runsOurWrapper(Number(await readFile(file, 'utf8').catch(() => ''))))) continue;
    await rm(file, { force: true });
    removed += 1;
  }
  // A session that never ran in the background leaves only its package-config baseline there.
  for (const session of await inFolder(localBackgroundStateDir(''), () => true)) {
    const entries = await readdir(session).catch(() => [] as string[]);
    const info = entries.length === 1 && entries[0] === BASELINE_FILE ? await lstat(path.join(session, BASELINE_FILE)).catch(() => undefined) : undefined;
    if (info && now - info.mtimeMs >= STALE_COMMAND_FILE_MS) {
      await rm(session, { recursive: true, force: true });
      removed += 1;
    }
  }
  return removed;
}

async function runsOurWrapper(pid: number): Promise<boolean> {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  return (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).includes(WRAPPER_MARKER);
}

/** Where a running command's output is kept until it ends (see CommandLog). */
function logFileFor(id: string): string {
  return `${pidFileFor(id).slice(0, -'.pid'.length)}.log`;
}

/**
 * Runs the command in `cwd` with stderr folded into stdout, then records the directory it ended
 * in, so a `cd` persists to the next command.
 */
function wrapCommand(command: string, cwd: string, cwdFile: string): string {
  return [
    'exec 2>&1',
    `builtin cd -- ${shellQuote(cwd)} || exit 126`,
    `eval ${shellQuote(command)}`,
    `${WRAPPER_MARKER}=$?`,
    `builtin pwd -P > ${shellQuote(cwdFile)} 2>/dev/null`,
    `exit $${WRAPPER_MARKER}`,
  ].join('\n');
}

interface StartedCommand {
  /** Also the process-group id: the command leads its own group. */
  pid: number | undefined;
  /** The exit code once the output is drained. */
  exited: Promise<number>;
}

/** Through the small spawner when it can (see small-spawner.ts), else spawned here. */
async function startWithPipes(argv: SandboxCommand, env: Record<string, string>, onText: (text: string) => void): Promise<StartedCommand> {
  const viaHelper = await smallSpawner.start(argv.file, argv.args, env, onText)?.catch(() => undefined);
  if (viaHelper) {
    trackCommandGroup(viaHelper.pid, viaHelper.exited);
    return viaHelper;
  }
  return spawnHere(argv, env, onText);
}

function spawnHere(argv: SandboxCommand, env: Record<string, string>, onText: (text: string) => void): StartedCommand {
  const child = spawn(argv.file, argv.args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env });
  const decoder = new StringDecoder('utf8');
  const onData = (data: Buffer) => {
    const text = decoder.write(data);
    if (text) onText(text);
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = waitForExit(child).then((exitCode) => {
    const rest = decoder.end();
    if (rest) onText(rest);
    return exitCode;
  });
  trackCommandGroup(child.pid, exited);
  return { pid: child.pid, exited };
}

/** Under a pseudo-terminal (node-pty): output arrives with `\n` line ends like the pipe path. */
function startInPty(argv: SandboxCommand, env: Record<string, string>, onText: (text: string) => void): StartedCommand {
  const child = spawnInPty(argv, env, '/', onText);
  const exited = child.exited.then(shellExitCode);
  trackCommandGroup(child.pid, exited);
  return { pid: child.pid, exited };
}

function waitForExit(child: ReturnType<typeof spawn>): Promise<number> {
  return new Promise((resolve, reject) => {
    let exitCode: number | undefined;
    let drainTimer: NodeJS.Timeout | undefined;
    const finish = () => {
      if (drainTimer) clearTimeout(drainTimer);
      resolve(exitCode ?? 1);
    };
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      exitCode = code ?? (signal ? 128 + (os.constants.signals[signal] ?? 0) : 1);
      drainTimer = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        finish();
      }, DRAIN_AFTER_EXIT_MS);
    });
    child.once('close', () => {
      if (exitCode !== undefined) finish();
    });
  });
}

/** SIGTERM the whole group, then SIGKILL whatever is left after the grace period. */
export function killProcessGroup(pid: number | undefined, graceMs: number): void {
  if (!pid) return;
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-pid, signal);
      return true;
    } catch {
      return false;
    }
  };
  if (!signalGroup('SIGTERM')) return;
  setTimeout(() => signalGroup('SIGKILL'), graceMs).unref();
}

