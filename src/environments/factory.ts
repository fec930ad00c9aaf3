// The one place that turns an environment handle into a live backend. Each backend is a driver
// that keeps its own per-worker connections (DESIGN.md rule 5); the handle itself stays in the
// workflow, so any worker can re-attach.
import { LocalPtyProcesses } from './background/local-pty-processes';
import { readdir } from 'node:fs/promises';
import { LocalEnvironment, localBackgroundStateDir, sessionKeyOf, sweepStaleCommandFiles, type LocalEnvironmentOptions } from './local-environment';
import { LocalSandbox, type SandboxState } from './local-sandbox';
import { forgetLiveWorkspace } from './live-workspaces';
import { recordedWorkspace, withRecordedWorkspace } from '../workflows/recorded-workspace';
import type { SessionWorkspaces } from './session-workspaces';
import type { Backend, EnvironmentDriver, EnvironmentHandle, TerminalEnvironment } from './terminal-environment';

/** The local backend: nothing to create, nothing to destroy; commands run in its sandbox. */
export class LocalDriver implements EnvironmentDriver {
  readonly backend = 'local' as const;
  private readonly options: LocalEnvironmentOptions & { sandbox: LocalSandbox };
  private swept?: Promise<number>;

  constructor(options: LocalEnvironmentOptions = {}) {
    // PTY processes live in this worker's memory and must outlive each per-call view.
    this.options = { ...options, ptyProcesses: options.ptyProcesses ?? new LocalPtyProcesses(), sandbox: options.sandbox ?? new LocalSandbox() };
  }

  /** What the sandbox is on this worker (logged at start-up, shown by `hermes-temporal tools`). */
  sandboxState(): SandboxState {
    return this.options.sandbox.state();
  }

  async unavailableReason(): Promise<string | undefined> {
    return this.options.sandbox.state().unavailableReason;
  }

  /** Records the workspace the session starts in: the one folder its commands may write. */
  async start(handle: EnvironmentHandle): Promise<EnvironmentHandle> {
    // Once per worker, in the background: what commands of dead workers left in the temp folder.
    this.swept ??= sweepStaleCommandFiles().catch(() => 0);
    return withRecordedWorkspace(handle);
  }

  async attach(handle: EnvironmentHandle): Promise<TerminalEnvironment> {
    return new LocalEnvironment(handle, this.options);
  }

  /**
   * The local machine outlives the session; what the session still runs in the background here
   * stops, its process files go, and so does its process cap.
   */
  async destroy(handle: EnvironmentHandle): Promise<void> {
    await new LocalEnvironment(handle, this.options).stopBackground();
    this.options.sandbox.releaseSession(sessionKeyOf(handle));
    forgetLiveWorkspace(sessionKeyOf(handle));
  }

  /** Worker shutdown: the process caps of sessions idle here go now rather than with their timers. */
  async releaseAll(): Promise<void> {
    await this.options.sandbox.processCaps.releaseAll();
  }
}

/**
 * The local end of a session no worker will ever finish (`run` quit and its embedded server went
 * with it): what it and its sub-agents (`<id>-sa<n>`, at any depth) still run in the background
 * here stops at once, as their environments' destroy would have done.
 */
export async function destroyAbandonedLocalSession(sessionId: string): Promise<void> {
  const family = new RegExp(`^${sessionKeyOf({ sessionId })}(-sa\\d+)*$`);
  const names = (await readdir(localBackgroundStateDir('')).catch(() => [] as string[])).filter((name) => family.test(name));
  const driver = new LocalDriver({ killGraceMs: 0 });
  await Promise.all(names.map((name) => driver.destroy({ backend: 'local', cwd: localBackgroundStateDir(name), sessionId: name }).catch(() => undefined)));
  // Their killed commands may still be exiting: this process is about to end, so wait for them here.
  await driver.releaseAll();
}

/**
 * The folders of this machine that the drivers' sessions write (a container's host binds) join the
 * workspaces nothing may run from outside a sandbox; known before any session starts, since a
 * worker's plugins load once and a hook runs for every session.
 */
export function learnHostFolders(drivers: readonly EnvironmentDriver[], workspaces: SessionWorkspaces): void {
  for (const driver of drivers) for (const folder of driver.hostFolders?.() ?? []) workspaces.add(folder);
}

export class EnvironmentFactory {
  private readonly drivers = new Map<Backend, EnvironmentDriver>();

  constructor(
    drivers: EnvironmentDriver[] = [new LocalDriver()],
    /** Learns the workspace of every local session this worker serves (hooks and MCP servers may not run from one). */
    private readonly workspaces?: SessionWorkspaces,
  ) {
    for (const driver of drivers) this.drivers.set(driver.backend, driver);
    if (workspaces) learnHostFolders(drivers, workspaces);
  }

  driver(backend: Backend): EnvironmentDriver {
    const driver = this.drivers.get(backend);
    if (!driver) throw new UnsupportedBackendError(backend, [...this.drivers.keys()]);
    return driver;
  }

  /** The local backend's sandbox on this worker, when the local backend is configured. */
  localSandboxState(): SandboxState | undefined {
    const local = this.drivers.get('local');
    return local instanceof LocalDriver ? local.sandboxState() : undefined;
  }

  /** Why `backend` cannot be used on this worker, or undefined when it can. */
  async unavailableReason(backend: Backend): Promise<string | undefined> {
    const driver = this.drivers.get(backend);
    return driver ? driver.unavailableReason() : `backend '${backend}' is not configured on this worker`;
  }

  async start(handle: EnvironmentHandle, signal?: AbortSignal): Promise<EnvironmentHandle> {
    const started = await this.driver(handle.backend).start(handle, signal);
    this.learnWorkspace(started);
    return started;
  }

  /** A live environment for `handle` (drivers reuse their connections across calls). */
  attach(handle: EnvironmentHandle): Promise<TerminalEnvironment> {
    this.learnWorkspace(handle);
    return this.driver(handle.backend).attach(handle);
  }

  /**
   * A local session's folder: sandboxed code writes it on this machine. (Elsewhere the cwd is a
   * path inside the sandbox; what it writes here the driver's `hostFolders` name.)
   */
  private learnWorkspace(handle: EnvironmentHandle): void {
    if (handle.backend === 'local') this.workspaces?.add(recordedWorkspace(handle) ?? handle.cwd);
  }

  destroy(handle: EnvironmentHandle): Promise<void> {
    return this.driver(handle.backend).destroy(handle);
  }

  /** Releases every driver's live connections (worker shutdown). */
  async releaseAll(): Promise<void> {
    await Promise.all([...this.drivers.values()].map(async (driver) => driver.releaseAll?.().catch(() => undefined)));
  }
}

export class UnsupportedBackendError extends Error {
  override readonly name = 'UnsupportedBackendError';
  constructor(
    readonly backend: string,
    available: string[],
  ) {
    super(`Terminal backend '${backend}' is not configured on this worker (available: ${available.join(', ')})`);
  }
}
