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
 * long gone; their lifetime backstop stopped them or soon will). Returns the names removed.
 */
export async function reapOrphanContainers(docker: Docker, maxAgeMs: number, now = Date.now()): Promise<string[]> {
  const labelled = await docker.listContainers({ all: true, filters: { label: [SESSION_LABEL] } });
  const removed: string[] = [];
  for (const info of labelled) {
    const created = Number(info.Labels[CREATED_LABEL]);
    // A container without a readable creation time falls back to the daemon's own (seconds).
    const createdMs = Number.isFinite(created) && created > 0 ? created : info.Created * 1000;
    if (now - createdMs <= maxAgeMs) continue;
    await removeContainer(docker.getContainer(info.Id));
    removed.push((info.Names[0] ?? info.Id).replace(/^\//, ''));
  }
  return removed;
}
