// The docker backend: one long-lived, hardened container per session, named and labelled after
// the session so any worker re-finds it, created at session start and removed at session end.
// One dockerode client per driver (per daemon socket) serves every session on this worker.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import Docker from 'dockerode';
import { BackendUnavailableError, type EnvironmentDriver, type EnvironmentHandle, type TerminalEnvironment } from '../terminal-environment';
import { ensureContainer, inspectOrUndefined, reapOrphanContainers, removeContainer, type EnsuredContainer } from './container-lifecycle';
import { BOUND_FOLDERS_LABEL, containerEnv, containerNameFor, containerSpec, isHostBind, writableHostFolders, type DockerSettings } from './container-spec';
import { asUnavailable, errorMessage, isNotFound } from './docker-errors';
import { DockerEnvironment } from './docker-environment';
import { BoundHostFolders, recordBoundHostFolders } from './bound-host-folders';
import { gitGuardBinds } from './git-guard-binds';
import { captureExec } from './run-exec';

export { reapOrphanContainers } from './container-lifecycle';

export interface DockerDriverOptions {
  /** Worker variables commands may see: forwarded into the container like `forward_env`. */
  envPassthrough?: readonly string[];
  /** Time between SIGTERM and SIGKILL when a command is stopped. */
  killGraceMs?: number;
  /** Where forwarded variables are read from (the worker's environment by default). */
  workerEnv?: NodeJS.ProcessEnv;
}

const PING_TIMEOUT_MS = 5_000;

/** `unix:///path`, a plain path, or `tcp://host:port` as dockerode connection options. */
export function connectionOptions(socket: string): Docker.DockerOptions {
  const tcp = /^(?:tcp|http):\/\/([^:/]+):(\d+)\/?$/.exec(socket);
  if (tcp) return { host: tcp[1], port: Number(tcp[2]), protocol: 'http' };
  return { socketPath: socket.replace(/^unix:\/\//, '') };
}

export class DockerDriver implements EnvironmentDriver {
  readonly backend = 'docker' as const;
  private client: Docker | undefined;

  constructor(
    private readonly settings: DockerSettings,
    private readonly options: DockerDriverOptions = {},
  ) {}

  private get killGraceMs(): number {
    return this.options.killGraceMs ?? 2000;
  }

  /** The cached client: dockerode opens a connection per request, so one serves all sessions. */
  docker(): Docker {
    this.client ??= new Docker(connectionOptions(this.settings.socket_path));
    return this.client;
  }

  async unavailableReason(): Promise<string | undefined> {
    const socket = this.settings.socket_path;
    const { socketPath } = connectionOptions(socket);
    if (socketPath && !existsSync(socketPath)) {
      return `Docker socket ${socketPath} does not exist: start the Docker daemon (for tests: eval "$(scripts/services/docker.sh start)") or set terminal.docker.socket_path`;
    }
    try {
      await withTimeout(this.docker().ping(), PING_TIMEOUT_MS, 'no answer');
    } catch (error) {
      return `The Docker daemon at ${socket} does not answer ping (${errorMessage(error)}): is dockerd running, and may this user open its socket?`;
    }
    try {
      await this.docker().getImage(this.settings.image).inspect();
    } catch (error) {
      if (!isNotFound(error)) return `Could not inspect image '${this.settings.image}' on ${socket}: ${errorMessage(error)}`;
      return (
        `Docker image '${this.settings.image}' is not present on the daemon at ${socket}, and this backend never pulls: ` +
        'build or import it there first (docker build / docker import, or docker pull where a registry is reachable), or set terminal.docker.image'
      );
    }
    return undefined;
  }

  async start(handle: EnvironmentHandle): Promise<EnvironmentHandle> {
    const sessionId = handle.sessionId ?? randomUUID().replace(/-/g, '').slice(0, 16);
    // Housekeeping on the way: containers whose workers vanished long ago go now.
    await this.reapOrphans().catch(() => undefined);
    const ensured = await this.ensure(sessionId, 'creating the container');
    // Keep the session's cwd if it already points somewhere real inside the container.
    const probe = await captureExec(ensured.container, ['bash', '-c', 'printf "%s\\n" "$HOME"; [ -d "$1" ] && echo yes', 'probe', handle.cwd]);
    const [home = '/root', cwdExists = ''] = probe.stdout.toString('utf8').split('\n');
    const cwd = path.posix.isAbsolute(handle.cwd) && cwdExists === 'yes' ? handle.cwd : this.settings.workdir;
    return {
      ...handle,
      sessionId,
      id: ensured.id,
      cwd,
      details: {
        ...handle.details,
        image: this.settings.image,
        container: containerNameFor(sessionId),
        network: this.settings.network,
        home: home || '/root',
        // Read by the approval checks: a host bind mount lets commands reach the worker's files.
        hostMounts: this.settings.volumes.some(isHostBind),
      },
    };
  }

  /**
   * A view over the session's container. A stopped container is started again; one that
   * vanished (removed by hand, daemon reset) is re-created from the image, and the next command
   * says so, rather than failing every later call of the session.
   */
  async attach(handle: EnvironmentHandle): Promise<TerminalEnvironment> {
    const docker = this.docker();
    const reference = handle.id ?? (handle.sessionId && containerNameFor(handle.sessionId));
    if (!reference) throw new BackendUnavailableError('The docker environment has not been started (no container id in the handle)');
    let info: Docker.ContainerInspectInfo | undefined;
    try {
      info = await inspectOrUndefined(docker.getContainer(reference));
      if (!info && handle.sessionId) info = await inspectOrUndefined(docker.getContainer(containerNameFor(handle.sessionId)));
    } catch (error) {
      throw asUnavailable(error, 'looking up the container');
    }
    if (info?.State.Running && !info.State.Paused) {
      return new DockerEnvironment(docker.getContainer(info.Id), { ...handle, id: info.Id }, { killGraceMs: this.killGraceMs, boundFolders: boundFoldersOf(info) });
    }
    if (!handle.sessionId) throw new BackendUnavailableError(`The session's container ${reference} is gone`);
    const ensured = await this.ensure(handle.sessionId, 'restoring the container');
    const repaired = { ...handle, id: ensured.id, ...(ensured.state === 'created' ? { cwd: this.settings.workdir } : {}) };
    const notice =
      ensured.state === 'created'
        ? `[The session's container had vanished and was re-created from ${this.settings.image}: files and processes from before are gone; cwd is ${this.settings.workdir}]`
        : ensured.state === 'restarted'
          ? "[The session's container had stopped and was restarted: files are kept, processes from before are gone]"
          : undefined;
    const boundFolders = boundFoldersOf(await inspectOrUndefined(ensured.container).catch(() => undefined));
    return new DockerEnvironment(ensured.container, repaired, { killGraceMs: this.killGraceMs, boundFolders, ...(notice ? { notice } : {}) });
  }

  /** Stops and removes the session's container (by id and by name). Idempotent. */
  async destroy(handle: EnvironmentHandle): Promise<void> {
    const docker = this.docker();
    const references = new Set([handle.id, handle.sessionId && containerNameFor(handle.sessionId)].filter((value): value is string => Boolean(value)));
    for (const reference of references) {
      const container = docker.getContainer(reference);
      const boundFolders = boundFoldersOf(await inspectOrUndefined(container).catch(() => undefined));
      await removeContainer(container);
      // Nothing writes the host folders now: what the session left in any of their subfolders goes.
      new BoundHostFolders(boundFolders).settle({ atEnd: true });
    }
  }

  async releaseAll(): Promise<void> {
    this.client = undefined;
  }

  /** What `volumes` binds writable into every session's container. */
  hostFolders(): string[] {
    return writableHostFolders(this.settings.volumes);
  }

  /** Removes labelled containers older than `orphan_max_age_seconds`; returns their names. */
  reapOrphans(now = Date.now()): Promise<string[]> {
    return reapOrphanContainers(this.docker(), this.settings.orphan_max_age_seconds * 1000, now);
  }

  private async ensure(sessionId: string, what: string): Promise<EnsuredContainer> {
    const spec = () =>
      containerSpec({
        sessionId,
        settings: this.settings,
        env: containerEnv(this.settings, this.options.envPassthrough ?? [], this.options.workerEnv ?? process.env),
        guardBinds: gitGuardBinds(this.settings.volumes),
        // Before any command of the session runs: what the host folders hold now is the user's.
        boundFolders: recordBoundHostFolders(this.settings.volumes),
      });
    try {
      return await ensureContainer(this.docker(), sessionId, spec);
    } catch (error) {
      if (this.settings.disk_mb && isStorageOptRefused(error)) throw new Error(diskBoundRefused(error));
      throw asUnavailable(error, what);
    }
  }
}

/** The baseline of the host folders a container was created with (a label), if any. */
function boundFoldersOf(info: Docker.ContainerInspectInfo | undefined): string | undefined {
  return info?.Config.Labels?.[BOUND_FOLDERS_LABEL];
}

/** The daemon's answer when its storage driver has no size option (overlay2 on ext4, vfs, ...). */
function isStorageOptRefused(error: unknown): boolean {
  return /storage-?opt|storage option/i.test(errorMessage(error));
}

/** Said instead of running the session without the disk bound its operator asked for. */
function diskBoundRefused(error: unknown): string {
  return (
    `terminal.docker.disk_mb is set, but this Docker daemon cannot limit a container's disk (${errorMessage(error)}). ` +
    "Its storage driver must support a size option: btrfs with quotas enabled, or overlay2 on XFS mounted with 'pquota'. " +
    'Unset disk_mb to run without a disk bound.'
  );
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
