// Background processes kept in the environment itself: a pid file, a log file, an exit file and
// a FIFO for stdin per process, under one directory per session. Everything goes through the
// environment's own `exec`, so it works on every backend, and any worker can find the processes
// again after a restart.
import { randomBytes } from 'node:crypto';
import { shellQuote } from '../shell-quote';
import { stopSessionProcessesScript } from './session-processes-script';
import { cappedLogWriter, quotaScript } from './log-budget';
import type { BackgroundProcesses, BackgroundProcessInfo, BackgroundStartRequest, ExecRequest, ExecResult } from '../terminal-environment';

type Exec = (request: ExecRequest) => Promise<ExecResult>;
/** Shell text that runs `command` in `cwd` (its stdio already redirected); the local sandbox wraps it. */
export type CommandLauncher = (command: string, cwd: string) => string;

interface ProcessMeta {
  id: string;
  command: string;
  cwd: string;
  startedAt: string;
  pty: boolean;
  notifyOnComplete: boolean;
}

const CONTROL_TIMEOUT_MS = 15_000;
const POLL_INTERVAL_MS = 500;
const FIELD = '\u001e';

export function newProcessId(): string {
  return `proc_${randomBytes(6).toString('hex')}`;
}

export class ExecBackgroundProcesses implements BackgroundProcesses {
  /**
   * @param exec the environment's exec
   * @param stateDir absolute directory inside the environment for this session's processes
   * @param killGraceSeconds time between TERM and KILL
   * @param launcher how the runner starts the command; `cd` and `bash -c` without one
   * @param logBudgetBytes what the session's background logs may hold together (see log-budget.ts); no limit without
   */
  constructor(
    private readonly exec: Exec,
    private readonly stateDir: string,
    private readonly killGraceSeconds = 2,
    private readonly launcher?: CommandLauncher,
    private readonly logBudgetBytes?: number,
  ) {}

  async start(request: BackgroundStartRequest): Promise<BackgroundProcessInfo> {
    const meta: ProcessMeta = {
      id: newProcessId(),
      command: request.command,
      cwd: request.cwd,
      startedAt: new Date().toISOString(),
      pty: Boolean(request.pty),
      notifyOnComplete: Boolean(request.notifyOnComplete),
    };
    const base = `${this.stateDir}/${meta.id}`;
    // PTY mode gives the command a terminal through script(1) where it exists.
    const inner = request.pty
      ? `if command -v script >/dev/null 2>&1; then exec script -qfec ${shellQuote(request.command)} /dev/null; else exec bash -c ${shellQuote(request.command)}; fi`
      : request.command;
    const launch = this.launcher ? this.launcher(inner, request.cwd) : 'cd -- "$2" && bash -c "$3"';
    const budget = this.logBudgetBytes;
    const runner = [
      'sleep 2147483647 > "$1.in" & echo $! > "$1.keeper"',
      // Through the budget's writer, the command's own status is the pipeline's first.
      ...(budget === undefined
        ? [`${launch} < "$1.in" > "$1.log" 2>&1`, 'echo $? > "$1.exit.tmp" && mv "$1.exit.tmp" "$1.exit"']
        : [`${launch} < "$1.in" 2>&1 | ${cappedLogWriter(budget)}`, 'echo "${PIPESTATUS[0]}" > "$1.exit.tmp" && mv "$1.exit.tmp" "$1.exit"']),
      'kill "$(cat "$1.keeper")" 2>/dev/null',
    ].join('\n');
    const script = [
      `mkdir -p ${shellQuote(this.stateDir)} && rm -f ${shellQuote(`${base}.in`)} && mkfifo ${shellQuote(`${base}.in`)} || exit 1`,
      ...(budget === undefined ? [] : [quotaScript(this.stateDir, budget), `echo "$quota" > ${shellQuote(`${base}.quota`)}`]),
      `printf '%s' ${shellQuote(JSON.stringify(meta))} > ${shellQuote(`${base}.json`)}`,
      `nohup setsid bash -c ${shellQuote(runner)} _ ${shellQuote(base)} ${shellQuote(request.cwd)} ${shellQuote(inner)} > /dev/null 2>&1 &`,
      `echo $! > ${shellQuote(`${base}.pid`)}`,
      `cat ${shellQuote(`${base}.pid`)}`,
    ].join('\n');
    const result = await this.control(script, request.env);
    const pid = Number.parseInt(result.output.trim(), 10);
    if (result.exitCode !== 0 || !Number.isInteger(pid)) {
      throw new Error(`Could not start the background process: ${result.output.trim() || `exit ${result.exitCode}`}`);
    }
    return { ...meta, pid, status: 'running' };
  }

  async list(): Promise<BackgroundProcessInfo[]> {
    const script = `for f in ${shellQuote(this.stateDir)}/proc_*.json; do [ -f "$f" ] || continue; b="\${f%.json}"; ${this.describeScript('$b')}; done`;
    const result = await this.control(script);
    return result.output
      .split('\n')
      .filter(Boolean)
      .map((line) => this.parseDescription(line))
      .filter((info): info is BackgroundProcessInfo => info !== undefined)
      .sort((a, b) => a.startedAt.localeCompare(b.startedAt));
  }

  async poll(id: string, tailChars = 1000): Promise<{ info: BackgroundProcessInfo; outputTail: string } | undefined> {
    const base = this.base(id);
    if (!base) return undefined;
    const result = await this.control(
      `[ -f ${shellQuote(`${base}.json`)} ] || exit 3\n${this.describeScript(shellQuote(base))}\ntail -c ${Math.max(0, Math.floor(tailChars))} ${shellQuote(`${base}.log`)} 2>/dev/null`,
    );
    if (result.exitCode === 3) return undefined;
    const [first = '', ...rest] = result.output.split('\n');
    const info = this.parseDescription(first);
    return info && { info, outputTail: rest.join('\n') };
  }

  /** One command for any number of processes: those with their files and no exit status yet. */
  async running(ids: readonly string[]): Promise<Set<string>> {
    const asked = new Set(ids.filter((id) => this.base(id)));
    if (!asked.size) return new Set();
    const result = await this.control(`for f in ${shellQuote(this.stateDir)}/proc_*.json; do [ -f "\${f%.json}.exit" ] || [ ! -f "$f" ] || basename "$f" .json; done`);
    if (result.exitCode !== 0) throw new Error(`Could not look at the background processes: ${result.output.trim() || `exit ${result.exitCode}`}`);
    return new Set(result.output.split('\n').filter((id) => asked.has(id)));
  }

  async log(id: string, offset: number, limit: number): Promise<{ info: BackgroundProcessInfo; output: string; totalLines: number } | undefined> {
    const base = this.base(id);
    if (!base) return undefined;
    const log = shellQuote(`${base}.log`);
    const select = offset > 0 ? `tail -n +${Math.floor(offset)} ${log} 2>/dev/null | head -n ${Math.floor(limit)}` : `tail -n ${Math.floor(limit)} ${log} 2>/dev/null`;
    const result = await this.control(
      `[ -f ${shellQuote(`${base}.json`)} ] || exit 3\n${this.describeScript(shellQuote(base))}\nwc -l < ${log} 2>/dev/null || echo 0\n${select}`,
    );
    if (result.exitCode === 3) return undefined;
    const [first = '', count = '0', ...rest] = result.output.split('\n');
    const info = this.parseDescription(first);
    return info && { info, output: rest.join('\n'), totalLines: Number.parseInt(count.trim(), 10) || 0 };
  }

  async wait(id: string, timeoutMs: number, signal?: AbortSignal): Promise<{ info: BackgroundProcessInfo; outputTail: string } | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const state = await this.poll(id, 2000);
      if (!state || state.info.status === 'exited' || Date.now() >= deadline || signal?.aborted) return state;
      await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_INTERVAL_MS, Math.max(0, deadline - Date.now()))));
    }
  }

  async kill(id: string): Promise<BackgroundProcessInfo | undefined> {
    const base = this.base(id);
    if (!base) return undefined;
    const pid = `$(cat ${shellQuote(`${base}.pid`)} 2>/dev/null)`;
    const script = [
      `[ -f ${shellQuote(`${base}.json`)} ] || exit 3`,
      `if [ ! -f ${shellQuote(`${base}.exit`)} ]; then`,
      `  kill -TERM -- -${pid} 2>/dev/null`,
      `  for _ in $(seq 1 ${this.killGraceSeconds * 10}); do kill -0 -- -${pid} 2>/dev/null || break; sleep 0.1; done`,
      `  kill -KILL -- -${pid} 2>/dev/null`,
      `  [ -f ${shellQuote(`${base}.exit`)} ] || echo -15 > ${shellQuote(`${base}.exit`)}`,
      'fi',
      `kill "$(cat ${shellQuote(`${base}.keeper`)} 2>/dev/null)" 2>/dev/null`,
      this.describeScript(shellQuote(base)),
    ].join('\n');
    const result = await this.control(script);
    if (result.exitCode === 3) return undefined;
    return this.parseDescription(result.output.split('\n').filter(Boolean).pop() ?? '');
  }

  async write(id: string, data: string): Promise<void> {
    const base = this.requireBase(id);
    const result = await this.control(
      `[ -p ${shellQuote(`${base}.in`)} ] && [ ! -f ${shellQuote(`${base}.exit`)} ] && kill -0 "$(cat ${shellQuote(`${base}.keeper`)})" 2>/dev/null || exit 3\n` +
        `printf '%s' ${shellQuote(data)} > ${shellQuote(`${base}.in`)}`,
    );
    if (result.exitCode !== 0) throw new Error('Process stdin not available (the process exited or its stdin was closed)');
  }

  async closeStdin(id: string): Promise<void> {
    const base = this.requireBase(id);
    await this.control(`kill "$(cat ${shellQuote(`${base}.keeper`)} 2>/dev/null)" 2>/dev/null; true`);
  }

  async stopAll(): Promise<void> {
    const result = await this.control(stopSessionProcessesScript(this.stateDir, this.killGraceSeconds));
    if (result.exitCode !== 0) throw new Error(`Could not stop the session's background processes: ${result.output.trim() || `exit ${result.exitCode}`}`);
  }

  /** One line: meta JSON, pid, exit code (or empty), separated by a record separator. */
  private describeScript(base: string): string {
    return `printf '%s${FIELD}%s${FIELD}%s\\n' "$(cat ${base}.json)" "$(cat ${base}.pid 2>/dev/null)" "$(cat ${base}.exit 2>/dev/null)"`;
  }

  private parseDescription(line: string): BackgroundProcessInfo | undefined {
    const [json = '', pid = '', exit = ''] = line.split(FIELD);
    try {
      const meta = JSON.parse(json) as ProcessMeta;
      const exitCode = exit.trim() === '' ? undefined : Number.parseInt(exit.trim(), 10);
      return {
        ...meta,
        ...(pid.trim() ? { pid: Number.parseInt(pid.trim(), 10) } : {}),
        status: exitCode === undefined ? 'running' : 'exited',
        ...(exitCode !== undefined ? { exitCode } : {}),
      };
    } catch {
      return undefined;
    }
  }

  /** Only ids this class made are accepted: they become file names. */
  private base(id: string): string | undefined {
    return /^proc_[0-9a-f]{12}$/.test(id) ? `${this.stateDir}/${id}` : undefined;
  }

  private requireBase(id: string): string {
    const base = this.base(id);
    if (!base) throw new Error(`No process with ID ${id}`);
    return base;
  }

  private control(command: string, env?: Record<string, string>): Promise<ExecResult> {
    return this.exec({ command, timeoutMs: CONTROL_TIMEOUT_MS, cwd: '/', ...(env ? { env } : {}), maxOutputChars: 1_000_000 });
  }
}
