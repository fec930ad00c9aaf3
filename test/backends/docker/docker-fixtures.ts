// Shared setup for the docker backend tests: settings for the test daemon and image, unique
// session ids, and a started environment that is destroyed afterwards.
import Docker from 'dockerode';
import { configSchema } from '../../../src/config/schema';
import type { DockerSettings } from '../../../src/environments/docker/container-spec';
import { DockerDriver, type DockerDriverOptions } from '../../../src/environments/docker/docker-driver';
import type { EnvironmentHandle } from '../../../src/environments/terminal-environment';

export const DOCKER_SERVICE_ENV = ['HERMES_TEST_DOCKER_SOCKET', 'HERMES_TEST_DOCKER_IMAGE'] as const;
/** A daemon whose storage driver keeps `disk_mb` (scripts/services/docker-quota.sh). */
export const DOCKER_QUOTA_SERVICE_ENV = ['HERMES_TEST_DOCKER_QUOTA_SOCKET', 'HERMES_TEST_DOCKER_IMAGE'] as const;

export function dockerSettings(env: Record<string, string>, overrides: Partial<DockerSettings> = {}): DockerSettings {
  const docker = { socket_path: env.HERMES_TEST_DOCKER_SOCKET, image: env.HERMES_TEST_DOCKER_IMAGE, ...overrides };
  return configSchema.parse({ terminal: { docker } }).terminal.docker;
}

export function testDriver(env: Record<string, string>, overrides: Partial<DockerSettings> = {}, options: DockerDriverOptions = {}): DockerDriver {
  return new DockerDriver(dockerSettings(env, overrides), { killGraceMs: 500, ...options });
}

let counter = 0;
export function uniqueSessionId(prefix = 'dt'): string {
  counter += 1;
  return `${prefix}-${process.pid}-${Date.now().toString(36)}-${counter}`;
}

export function newHandle(sessionId = uniqueSessionId()): EnvironmentHandle {
  return { backend: 'docker', cwd: '/workspace', sessionId };
}

export function dockerClient(env: Record<string, string>): Docker {
  return new Docker({ socketPath: env.HERMES_TEST_DOCKER_SOCKET });
}

/** Containers labelled for `sessionId`, running or not. */
export async function sessionContainers(docker: Docker, sessionId: string): Promise<Docker.ContainerInfo[]> {
  return docker.listContainers({ all: true, filters: { label: [`hermes-temporal.session=${sessionId}`] } });
}
