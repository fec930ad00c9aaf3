// A session's container from creation to removal, against the real test daemon: hardened
// settings, re-found by a new worker, repaired when stopped or removed, reaped when orphaned.
import net from 'node:net';
import path from 'node:path';
import { CREATED_LABEL, SESSION_LABEL, containerSpec } from '../../../src/environments/docker/container-spec';
import { reapOrphanContainers } from '../../../src/environments/docker/docker-driver';
import { describeWithService } from '../../helpers/services';
import { DOCKER_SERVICE_ENV, dockerClient, dockerSettings, newHandle, sessionContainers, testDriver, uniqueSessionId } from './docker-fixtures';
import { tempDir } from '../../helpers/temp-dirs';

describeWithService('docker', DOCKER_SERVICE_ENV, 'docker backend: container lifecycle', (serviceEnv) => {
  const docker = dockerClient(serviceEnv);

  test('the backend is available with the test daemon and image', async () => {
    await expect(testDriver(serviceEnv).unavailableReason()).resolves.toBeUndefined();
  });

  test('unavailableReason says what is missing and how to fix it', async () => {
    const missingSocket = testDriver(serviceEnv, { socket_path: '/nonexistent/docker.sock' });
    expect(await missingSocket.unavailableReason()).toMatch(/socket \/nonexistent\/docker.sock does not exist: start the Docker daemon/);

    const missingImage = testDriver(serviceEnv, { image: 'hermes-test:no-such-tag' });
    expect(await missingImage.unavailableReason()).toMatch(/image 'hermes-test:no-such-tag' is not present .* never pulls: build or import it/);

    // A socket where nothing speaks the Docker API.
    const silentSocket = path.join(tempDir('hermes-silent-'), 'docker.sock');
    const server = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => server.listen(silentSocket, resolve));
    try {
      expect(await testDriver(serviceEnv, { socket_path: silentSocket }).unavailableReason()).toMatch(/does not answer ping/);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test('start creates one hardened, labelled container per session', async () => {
    const driver = testDriver(serviceEnv, { memory_mb: 256, cpus: 0.5, pids_limit: 64, lifetime_seconds: 900 });
    const before = Date.now();
    const handle = await driver.start(newHandle());
    try {
      expect(handle).toMatchObject({ backend: 'docker', cwd: '/workspace', details: { hostMounts: false, network: false, home: '/root' } });
      const info = await docker.getContainer(handle.id!).inspect();
      expect(info.Name).toBe(`/hermes-${handle.sessionId}`);
      expect(info.Config.Labels[SESSION_LABEL]).toBe(handle.sessionId);
      expect(Number(info.Config.Labels[CREATED_LABEL])).toBeGreaterThanOrEqual(before);
      expect(info.Config.Cmd).toEqual(['sleep', '900']);
      expect(info.Config.WorkingDir).toBe('/workspace');
      expect(info.HostConfig).toMatchObject({
        Init: true,
        CapDrop: ['ALL'],
        CapAdd: ['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'SETUID', 'SETGID', 'KILL'],
        SecurityOpt: ['no-new-privileges'],
        NetworkMode: 'none',
        PidsLimit: 64,
        Memory: 256 * 1024 * 1024,
        NanoCpus: 500_000_000,
        Tmpfs: { '/tmp': expect.stringContaining('size=512m') },
      });
      expect(info.State.Running).toBe(true);
    } finally {
      await driver.destroy(handle);
    }
  });

  test('a host bind mount is recorded in the handle (approval checks turn back on)', async () => {
    const hostDir = tempDir('hermes-bind-');
    const driver = testDriver(serviceEnv, { volumes: [`${hostDir}:/data:ro`] });
    const handle = await driver.start(newHandle());
    try {
      expect(handle.details?.hostMounts).toBe(true);
      const info = await docker.getContainer(handle.id!).inspect();
      expect(info.HostConfig.Binds).toEqual([`${hostDir}:/data:ro`]);
    } finally {
      await driver.destroy(handle);
    }
  });

  test('after a worker restart, a new driver re-finds the same container and its files', async () => {
    const first = testDriver(serviceEnv);
    const handle = await first.start(newHandle());
    try {
      const environment = await first.attach(handle);
      await environment.workspace.writeFile('kept.txt', 'written before the restart\n');
      await environment.exec({ command: 'mkdir -p sub && cd sub', timeoutMs: 10_000 });
      const moved = environment.handle;

      const restarted = testDriver(serviceEnv);
      const again = await restarted.attach(moved);
      expect(again.handle.id).toBe(handle.id);
      expect((await again.workspace.readFile('/workspace/kept.txt')).toString()).toBe('written before the restart\n');
      expect((await again.exec({ command: 'pwd', timeoutMs: 10_000 })).output).toBe('/workspace/sub\n');
      // Starting the same session again (e.g. a retried start activity) finds it by name, keeping the cwd.
      const restartedStart = await restarted.start({ ...moved, id: undefined });
      expect(restartedStart).toMatchObject({ id: handle.id, cwd: '/workspace/sub' });
    } finally {
      await first.destroy(handle);
    }
  });

  test('a stopped container is started again on attach, files kept, and the next command says so', async () => {
    const driver = testDriver(serviceEnv);
    const handle = await driver.start(newHandle());
    try {
      await (await driver.attach(handle)).workspace.writeFile('survives.txt', 'yes');
      await docker.getContainer(handle.id!).stop({ t: 0 });
      const environment = await driver.attach(handle);
      const result = await environment.exec({ command: 'cat survives.txt', timeoutMs: 10_000, id: 'call-after-stop' });
      expect(result.output).toBe("[The session's container had stopped and was restarted: files are kept, processes from before are gone]\nyes");
    } finally {
      await driver.destroy(handle);
    }
  });

  test('a container removed behind our back is re-created on attach, and the next command says so', async () => {
    const driver = testDriver(serviceEnv);
    const handle = await driver.start(newHandle());
    try {
      const environment = await driver.attach(handle);
      await environment.exec({ command: 'mkdir -p deep && cd deep', timeoutMs: 10_000 });
      await docker.getContainer(handle.id!).remove({ force: true });
      const repaired = await driver.attach(environment.handle);
      expect(repaired.handle.id).not.toBe(handle.id);
      expect(repaired.handle.cwd).toBe('/workspace');
      const result = await repaired.exec({ command: 'pwd', timeoutMs: 10_000, id: 'call-after-removal' });
      expect(result.output).toMatch(/^\[The session's container had vanished and was re-created from .*: files and processes from before are gone; cwd is \/workspace\]\n\/workspace\n$/);
      // Only the model's command carries the notice, once.
      expect((await repaired.exec({ command: 'pwd', timeoutMs: 10_000, id: 'call-next' })).output).toBe('/workspace\n');
    } finally {
      await driver.destroy(handle);
    }
  });

  test('the orphan reaper removes labelled containers older than the bound and keeps the rest', async () => {
    const settings = dockerSettings(serviceEnv);
    const oldId = uniqueSessionId('orphan-old');
    const freshId = uniqueSessionId('orphan-fresh');
    const twoDaysAgo = Date.now() - 2 * 24 * 3600 * 1000;
    await docker.createContainer(containerSpec({ sessionId: oldId, settings, env: [], now: twoDaysAgo }));
    await docker.createContainer(containerSpec({ sessionId: freshId, settings, env: [] }));
    try {
      // (Another test file's start may reap the old one first: assert on what is left.)
      const removed = await reapOrphanContainers(docker, 24 * 3600 * 1000);
      expect(removed).not.toContain(`hermes-${freshId}`);
      expect(await sessionContainers(docker, oldId)).toHaveLength(0);
      expect(await sessionContainers(docker, freshId)).toHaveLength(1);
    } finally {
      await testDriver(serviceEnv).destroy({ backend: 'docker', cwd: '/', sessionId: freshId });
    }
  });

  test("the reaper keeps a long session's container, which runs past the bound (its lifetime ended and attach started it again)", async () => {
    const settings = dockerSettings(serviceEnv);
    const longId = uniqueSessionId('long-session');
    const container = await docker.createContainer(containerSpec({ sessionId: longId, settings, env: [], now: Date.now() - 2 * 24 * 3600 * 1000 }));
    await container.start();
    try {
      const driver = testDriver(serviceEnv);
      await (await driver.attach({ backend: 'docker', cwd: '/tmp', sessionId: longId })).exec({ command: 'echo kept > /tmp/work.txt', timeoutMs: 20_000 });
      const removed = await reapOrphanContainers(docker, 24 * 3600 * 1000);
      expect(removed).not.toContain(`hermes-${longId}`);
      const again = await driver.attach({ backend: 'docker', cwd: '/tmp', sessionId: longId });
      expect((await again.exec({ id: 'after-reap', command: 'cat /tmp/work.txt', timeoutMs: 20_000 })).output).toBe('kept\n');
    } finally {
      await testDriver(serviceEnv).destroy({ backend: 'docker', cwd: '/', sessionId: longId });
    }
  });

  test('start runs the reaper with orphan_max_age_seconds', async () => {
    const settings = dockerSettings(serviceEnv);
    const oldId = uniqueSessionId('orphan-start');
    await docker.createContainer(containerSpec({ sessionId: oldId, settings, env: [], now: Date.now() - 7200 * 1000 }));
    const driver = testDriver(serviceEnv, { orphan_max_age_seconds: 3600 });
    const handle = await driver.start(newHandle());
    try {
      expect(await sessionContainers(docker, oldId)).toHaveLength(0);
    } finally {
      await driver.destroy(handle);
    }
  });

  test('destroy leaves no container behind and can be repeated', async () => {
    const driver = testDriver(serviceEnv);
    const handle = await driver.start(newHandle());
    const environment = await driver.attach(handle);
    await environment.background.start({ command: 'sleep 300', cwd: '/workspace' });
    await driver.destroy(handle);
    expect(await sessionContainers(docker, handle.sessionId!)).toHaveLength(0);
    await expect(driver.destroy(handle)).resolves.toBeUndefined();
  });

  test('attach without a reachable daemon is a retryable BackendUnavailableError', async () => {
    const driver = testDriver(serviceEnv, { socket_path: '/nonexistent/docker.sock' });
    await expect(driver.attach({ ...newHandle(), id: 'abc' })).rejects.toMatchObject({ name: 'BackendUnavailableError' });
  });
});
