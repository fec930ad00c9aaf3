// What a session's container looks like: its name and labels (how it is found again and how
// orphans are recognised) and the hardened settings it is created with.
import os from 'node:os';
import path from 'node:path';
import type Docker from 'dockerode';
import type { HermesConfig } from '../../config/schema';

export type DockerSettings = HermesConfig['terminal']['docker'];

export const SESSION_LABEL = 'hermes-temporal.session';
export const CREATED_LABEL = 'hermes-temporal.created';
/** What the host folders bound in held when the container was created (bound-host-folders.ts): on the daemon, where any worker reads it and no command writes it. */
export const BOUND_FOLDERS_LABEL = 'hermes-temporal.bound-folders';

/**
 * Root in the container keeps only what a shell session needs: file ownership and permission
 * fixes (CHOWN, DAC_OVERRIDE, FOWNER), switching users as package managers and `su` do (SETUID,
 * SETGID), and KILL, so a timeout can still stop a command that switched to another user.
 * Everything else (NET_RAW, MKNOD, SYS_CHROOT, AUDIT_WRITE, ...) is dropped.
 */
export const CAPABILITIES = ['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'SETUID', 'SETGID', 'KILL'];
const TMPFS_OPTIONS = 'rw,exec,nosuid,nodev,size=512m';

export function containerNameFor(sessionId: string): string {
  return `hermes-${sessionId.replace(/[^A-Za-z0-9_.-]/g, '_')}`;
}

/** `host:container[:mode]` with a host path (not a named volume) exposes the worker's files. */
export function isHostBind(volume: string): boolean {
  const source = volume.split(':')[0] ?? '';
  return source.startsWith('/') || source.startsWith('~') || source.startsWith('.');
}

/** The host binds a container can write (not `:ro`): host folder (`~` expanded) and where the container sees it. */
export function writableHostBinds(volumes: readonly string[]): { source: string; target: string }[] {
  return volumes
    .filter((volume) => isHostBind(volume) && !(volume.split(':')[2] ?? '').split(',').includes('ro'))
    .map((volume) => {
      const [source = '', target = ''] = bindFor(volume).split(':');
      return { source: path.resolve(source), target: path.posix.resolve('/', target) };
    });
}

/** The host folders of the binds a container can write. */
export function writableHostFolders(volumes: readonly string[]): string[] {
  return writableHostBinds(volumes).map((bind) => bind.source);
}

/** Bind sources with `~` expanded, as the daemon wants absolute host paths. */
function bindFor(volume: string): string {
  return volume.startsWith('~/') || volume.startsWith('~:') ? os.homedir() + volume.slice(1) : volume;
}

/** Names from `forward_env` (and `env_passthrough`) copied from the worker, then the fixed `env`. */
export function containerEnv(settings: DockerSettings, passthrough: readonly string[], workerEnv: NodeJS.ProcessEnv): string[] {
  const env: Record<string, string> = {};
  for (const name of [...passthrough, ...settings.forward_env]) {
    const value = workerEnv[name];
    if (value !== undefined) env[name] = value;
  }
  Object.assign(env, settings.env);
  return Object.entries(env).map(([name, value]) => `${name}=${value}`);
}

export function containerSpec(options: {
  sessionId: string;
  settings: DockerSettings;
  env: string[];
  now?: number;
  /** Read-only binds over what git obeys in the host folders mounted (see git-guard-binds.ts). */
  guardBinds?: readonly string[];
  /** The baseline of the host folders mounted, when there are some (see bound-host-folders.ts). */
  boundFolders?: string;
}): Docker.ContainerCreateOptions {
  const { settings } = options;
  const binds = [...settings.volumes.map(bindFor), ...(options.guardBinds ?? [])];
  return {
    name: containerNameFor(options.sessionId),
    Image: settings.image,
    // The self-destruct backstop: an orphaned container stops by itself after its lifetime.
    Cmd: ['sleep', String(settings.lifetime_seconds)],
    WorkingDir: settings.workdir,
    Env: options.env,
    Labels: {
      [SESSION_LABEL]: options.sessionId,
      [CREATED_LABEL]: String(options.now ?? Date.now()),
      ...(options.boundFolders ? { [BOUND_FOLDERS_LABEL]: options.boundFolders } : {}),
    },
    Tty: false,
    OpenStdin: false,
    HostConfig: {
      // An init as PID 1 reaps the zombies that background jobs leave and forwards stop signals.
      Init: true,
      CapDrop: ['ALL'],
      CapAdd: CAPABILITIES,
      SecurityOpt: ['no-new-privileges'],
      PidsLimit: settings.pids_limit,
      Memory: settings.memory_mb * 1024 * 1024,
      NanoCpus: Math.round(settings.cpus * 1e9),
      // Unset means the daemon's default network (usually its bridge).
      ...(settings.network ? {} : { NetworkMode: 'none' }),
      Tmpfs: { '/tmp': TMPFS_OPTIONS },
      // The writable layer's bound: the daemon refuses it where its storage driver has no quotas.
      ...(settings.disk_mb ? { StorageOpt: { size: `${settings.disk_mb}M` } } : {}),
      ...(binds.length ? { Binds: binds } : {}),
    },
  };
}
