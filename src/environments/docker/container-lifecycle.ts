// Creating, re-finding, removing and reaping session containers.
import type Docker from 'dockerode';
import { CREATED_LABEL, SESSION_LABEL, containerNameFor } from './container-spec';
import { isNotFound } from './docker-errors';

export interface EnsuredContainer {
  container: Docker.Container;
  id: string;
  /** `created`: there was none; `restarted`: it had stopped (its processes are gone, files kept). */
  state: 'running' | 'restarted' | 'created';
}

/**
 * The session's container, running: re-found by name (started again if it stopped, e.g. after its
 * lifetime ran out or the daemon restarted), or created from `spec`.
 */
export async function ensureContainer(
  docker: Docker,
  sessionId: string,
  spec: () => Docker.ContainerCreateOptions,
  attempts = 2,
): Promise<EnsuredContainer> {
  const name = containerNameFor(sessionId);
  const existing = await inspectOrUndefined(docker.getContainer(name));
  if (existing) {
    const container = docker.getContainer(existing.Id);
    const restarted = await startIfNeeded(container, existing);
    return { container, id: existing.Id, state: restarted ? 'restarted' : 'running' };
  }
  let container: Docker.Container;
  try {
    container = await docker.createContainer(spec());
  } catch (error) {
    // Another worker created it in the meantime: use theirs.
    if ((error as { statusCode?: number }).statusCode !== 409 || attempts <= 1) throw error;
    return ensureContainer(docker, sessionId, spec, attempts - 1);
  }
  await container.start();
  return { container, id: container.id, state: 'created' };
}

/** Makes a stopped or paused container run again; true when it had stopped. */
async function startIfNeeded(container: Docker.Container, info: Docker.ContainerInspectInfo): Promise<boolean> {
  if (info.State.Paused) {
    await container.unpause();
    return false;
  }
  if (info.State.Running) return false;
  // 304: someone else started it in the meantime, which is fine.
  await container.start().catch((error: { statusCode?: number }) => {
    if (error.statusCode !== 304) throw error;
  });
  return true;
}

/**
 * Old enough, and stopped, or running since longer than the bound: a live session's container
 * runs for at most its lifetime before its worker starts it again.
 */
export function isOrphan(container: { createdMs: number; running: boolean; startedMs: number }, maxAgeMs: number, now: number): boolean {
  if (now - container.createdMs <= maxAgeMs) return false;
  return !container.running || now - container.startedMs > maxAgeMs;
}

/** When the container last started (ms since the epoch); 0 when the daemon cannot say. */
async function startedAt(container: Docker.Container): Promise<number> {
  const started = Date.parse((await inspectOrUndefined(container))?.State.StartedAt ?? '');
  return Number.isFinite(started) ? started : 0;
}

export async function inspectOrUndefined(container: Docker.Container): Promise<Docker.ContainerInspectInfo | undefined> {
  try {
    return await container.inspect();
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/** Stops and removes a container; a container that is already gone is fine. */
export async function removeContainer(container: Docker.Container): Promise<void> {
  try {
    await container.remove({ force: true, v: true });
  } catch (error) {
    const status = (error as { statusCode?: number }).statusCode;
    // 404: gone already; 409: removal already in progress.
    if (status !== 404 && status !== 409) throw error;
  }
}

/**
 * Removes session containers whose `created` label is older than `maxAgeMs` (their workers are
 * long gone; their lifetime backstop stopped them or soon will). Returns the names removed. One
 * running that was started within the bound is kept: a long session's container, which its worker
 * started again when its lifetime ended, is still in use. (One running longer, its `sleep` stopped
 * by a command, is an orphan that evades its lifetime: it goes.)
 */
export async function reapOrphanContainers(docker: Docker, maxAgeMs: number, now = Date.now()): Promise<string[]> {
  const labelled = await docker.listContainers({ all: true, filters: { label: [SESSION_LABEL] } });
  const removed: string[] = [];
  for (const info of labelled) {
    const created = Number(info.Labels[CREATED_LABEL]);
    // A container without a readable creation time falls back to the daemon's own (seconds).
    const createdMs = Number.isFinite(created) && created > 0 ? created : info.Created * 1000;
    if (now - createdMs <= maxAgeMs) continue;
    const running = info.State === 'running';
    if (!isOrphan({ createdMs, running, startedMs: running ? await startedAt(docker.getContainer(info.Id)) : 0 }, maxAgeMs, now)) continue;
    await removeContainer(docker.getContainer(info.Id));
    removed.push((info.Names[0] ?? info.Id).replace(/^\//, ''));
  }
  return removed;
}
