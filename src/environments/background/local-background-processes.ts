// The local backend's background processes as one set: PTY processes run under node-pty in this
// worker (LocalPtyProcesses), every other one is file-backed and survives a worker restart
// (ExecBackgroundProcesses). Both use `proc_<12 hex>` ids; a process is routed by where it lives.
import type { BackgroundProcesses, BackgroundProcessInfo, BackgroundStartRequest } from '../terminal-environment';
import type { LocalPtyProcesses, PtyLauncher } from './local-pty-processes';
import { runningByPoll, runningOf } from './running-processes';

export class LocalBackgroundProcesses implements BackgroundProcesses {
  /**
   * @param files file-backed processes of this session
   * @param ptys this worker's PTY processes
   * @param stateDir this session's directory for process files
   * @param environment the variables a new PTY process starts with
   * @param killGraceMs time between TERM and KILL when a PTY process is killed
   * @param launcher what a PTY process's script runs in (the sandbox)
   * @param beforeStart called before any process starts
   * @param logBudgetBytes what the session's background logs may hold together (PTY ones too)
   */
  constructor(
    private readonly files: BackgroundProcesses,
    private readonly ptys: LocalPtyProcesses,
    private readonly stateDir: string,
    private readonly environment: () => Record<string, string>,
    private readonly killGraceMs = 2000,
    private readonly launcher?: PtyLauncher,
    private readonly beforeStart?: () => void,
    private readonly logBudgetBytes?: number,
  ) {}

  start(request: BackgroundStartRequest): Promise<BackgroundProcessInfo> {
    this.beforeStart?.();
    if (!request.pty) return this.files.start(request);
    return this.ptys.start(this.stateDir, request, { ...this.environment(), ...request.env }, this.launcher, this.logBudgetBytes);
  }

  async list(): Promise<BackgroundProcessInfo[]> {
    const [files, ptys] = await Promise.all([this.files.list(), this.ptys.list(this.stateDir)]);
    return [...files, ...ptys].sort((a, b) => a.startedAt.localeCompare(b.startedAt));
  }

  async poll(id: string, tailChars?: number) {
    return (await this.isPty(id)) ? this.ptys.poll(this.stateDir, id, tailChars ?? 1000) : this.files.poll(id, tailChars);
  }

  /** PTY processes from this worker's memory; the file-backed ones in one look. */
  async running(ids: readonly string[]): Promise<Set<string>> {
    const isPty = await Promise.all(ids.map((id) => this.isPty(id)));
    const ptys = ids.filter((_, index) => isPty[index]);
    const files = ids.filter((_, index) => !isPty[index]);
    const [fromPtys, fromFiles] = await Promise.all([
      runningByPoll(ptys, (id) => this.ptys.poll(this.stateDir, id, 0)),
      files.length ? runningOf(this.files, files) : new Set<string>(),
    ]);
    return new Set([...fromPtys, ...fromFiles]);
  }

  async log(id: string, offset: number, limit: number) {
    return (await this.isPty(id)) ? this.ptys.log(this.stateDir, id, offset, limit) : this.files.log(id, offset, limit);
  }

  async wait(id: string, timeoutMs: number, signal?: AbortSignal) {
    return (await this.isPty(id)) ? this.ptys.wait(this.stateDir, id, timeoutMs, signal) : this.files.wait(id, timeoutMs, signal);
  }

  async kill(id: string) {
    return (await this.isPty(id)) ? this.ptys.kill(this.stateDir, id, this.killGraceMs) : this.files.kill(id);
  }

  async write(id: string, data: string): Promise<void> {
    return (await this.isPty(id)) ? this.ptys.write(this.stateDir, id, data) : this.files.write(id, data);
  }

  async closeStdin(id: string): Promise<void> {
    return (await this.isPty(id)) ? this.ptys.closeStdin(this.stateDir, id) : this.files.closeStdin(id);
  }

  /** Only a PTY process of this worker can be looked at: a file-backed one's pid is its sandbox's own. */
  async inputFolder(id: string): Promise<string | undefined> {
    return (await this.isPty(id)) ? this.ptys.inputFolder(this.stateDir, id) : undefined;
  }

  /** PTY processes first (only this worker holds them), then the files, with the session's folder. */
  async stopAll(): Promise<void> {
    const running = (await this.ptys.list(this.stateDir)).filter((info) => info.status === 'running');
    await Promise.all(running.map((info) => this.ptys.kill(this.stateDir, info.id, this.killGraceMs)));
    await this.files.stopAll?.();
  }

  private isPty(id: string): Promise<boolean> {
    return this.ptys.owns(this.stateDir, id);
  }
}
