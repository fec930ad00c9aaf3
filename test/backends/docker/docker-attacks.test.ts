// The model as the adversary on the docker backend: what its container holds is its own, the
// worker that reads it for the file tools is not. A file tool pointed at something endless (a
// device, a FIFO, a huge sparse file) is refused instead of filling the worker's memory, which
// every session on that worker shares.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { classifyCommand, loadCommandClassifier } from '../../../src/approval-signals/classify-command';
import { followNamedPaths } from '../../../src/approval-signals/linked-paths';
import type { DockerDriver } from '../../../src/environments/docker/docker-driver';
import { DockerWorkspace } from '../../../src/environments/docker/docker-workspace';
import { ExecWorkspace } from '../../../src/environments/shell/exec-workspace';
import { realPathsOn } from '../../../src/environments/workspace';
import type { EnvironmentHandle, TerminalEnvironment } from '../../../src/environments/terminal-environment';
import { expectReadsBoundedBySize, expectReadsOfSpecialFilesRefused, expectSpecialFilesRefused, expectSwappedFifoReadsRefused, expectWalkBoundedByBytes, expectWalkBoundedByEntries, specialFileSessionTurns } from '../../helpers/bounded-read-contract';
import { tempDir } from '../../helpers/temp-dirs';
import { describeWithService } from '../../helpers/services';
import { connectHarness, toolResults, withScriptedSession, type Harness } from '../../helpers/session-harness';
import { DOCKER_QUOTA_SERVICE_ENV, DOCKER_SERVICE_ENV, newHandle, testDriver } from './docker-fixtures';

describeWithService('docker', DOCKER_SERVICE_ENV, 'docker backend: attacks on the worker through the container', (serviceEnv) => {
  let driver: DockerDriver;
  let handle: EnvironmentHandle;
  let environment: TerminalEnvironment;
  const run = async (command: string) => {
    const result = await environment.exec({ command, timeoutMs: 30_000 });
    if (result.exitCode !== 0) throw new Error(`'${command}' exited ${result.exitCode}: ${result.output}`);
  };

  beforeAll(async () => {
    driver = testDriver(serviceEnv);
    handle = await driver.start(newHandle());
    environment = await driver.attach(handle);
  });
  afterAll(async () => {
    await driver.destroy(handle);
  });

  test('file reads stop at the limit: a larger file, also a sparse one, is refused', async () => {
    await expectReadsBoundedBySize(environment.workspace, run, '/workspace/bounded');
  });

  test('a device or a FIFO is refused at once, not read for ever or waited on', async () => {
    await expectReadsOfSpecialFilesRefused(environment.workspace, run, '/workspace/special');
  });

  test('a file swapped for a FIFO between the look and the open is refused within seconds, not waited on until the timeout', async () => {
    const workspace = new DockerWorkspace(driver.docker().getContainer(handle.id!), '/workspace', '/root', { timeoutMs: 8_000, openWaitSeconds: 1 });
    await expectSwappedFifoReadsRefused(workspace, run, '/workspace/swapped');
  }, 120_000);

  test('a program of the container that never ends makes a file tool fail in time, not hang the tool call', async () => {
    // The container is the agent's: it may put a `head`, `mv`, `stat` or `find` of its own first on PATH.
    const planted = ['head', 'mv', 'stat', 'find'].map((program) => `/usr/local/bin/${program}`);
    await run(`mkdir -p /workspace/stuck && echo text > /workspace/stuck/file.txt && for p in ${planted.join(' ')}; do printf '#!/bin/sh\nexec sleep 3600\n' > $p; chmod +x $p; done`);
    const workspace = new DockerWorkspace(driver.docker().getContainer(handle.id!), '/workspace', '/root', { timeoutMs: 1_500 });
    try {
      const started = Date.now();
      const attempts = [workspace.readFile('stuck/file.txt'), workspace.writeFile('stuck/file.txt', 'new'), workspace.stat('stuck/file.txt'), (async () => {
        for await (const file of workspace.walk('stuck', { maxFiles: 10, skipDirectories: new Set() })) void file;
      })()];
      const outcomes = await Promise.allSettled(attempts);
      expect(Date.now() - started).toBeLessThan(15_000);
      for (const outcome of outcomes) {
        expect(outcome).toMatchObject({ status: 'rejected', reason: { code: 'ETIMEDOUT' } });
        expect(String((outcome as PromiseRejectedResult).reason.message)).toContain('/workspace/stuck');
      }
    } finally {
      await run(`rm -f ${planted.join(' ')}`);
    }
  });

  test('with host folders mounted, each path a command names gets its own answer, a line break in a name included: a write through a link is judged where it leads', async () => {
    await loadCommandClassifier();
    const project = realpathSync(tempDir('hermes-docker-breaks-'));
    const mounted = testDriver(serviceEnv, { volumes: [`${project}:/workspace`] });
    const mountedHandle = await mounted.start(newHandle());
    try {
      const inside = await mounted.attach(mountedHandle);
      // `job` leads out of the workspace, to a name whose line break printed two answers, one per line.
      await inside.exec({ command: `ln -s "/etc/profile.d/x$(printf '\\n+')/workspace/fine.sh" job`, timeoutMs: 30_000 });
      // The model writes, first, to a path whose answer also spans two lines.
      const text = "echo note > 'made\n+/workspace/fine'; echo evil > job";
      const context = { backend: 'docker' as const, cwd: '/workspace', workspaceRoot: '/workspace', home: '/root', protectedFiles: [] };
      const byName = classifyCommand(text, context);
      const followed = await followNamedPaths(text, context, byName, (targets) => realPathsOn(inside.workspace, targets));
      // Each path gets its own answer (a line break shown as `?`): the write is judged where `job` leads.
      expect(followed.tier).not.toBe(byName.tier);
      expect(followed.rules).toContainEqual(expect.objectContaining({ command: 'echo evil > job', description: expect.stringContaining('leads to /etc/profile.d/x?+/workspace/fine.sh') as unknown }));
    } finally {
      await mounted.destroy(mountedHandle);
    }
  });

  test("a script run in a container with the host's repository mounted plants no hook or config git would run on the host", async () => {
    const project = realpathSync(tempDir('hermes-docker-mounted-'));
    execFileSync('git', ['init', '-q', project]);
    execFileSync('bash', ['-c', `mkdir -p ${project}/.husky && git -C ${project} config core.hooksPath .husky`]);
    const configBefore = readFileSync(path.join(project, '.git', 'config'), 'utf8');
    const mounted = testDriver(serviceEnv, { volumes: [`${project}:/workspace`] });
    const mountedHandle = await mounted.start(newHandle());
    try {
      const inside = await mounted.attach(mountedHandle);
      // What the gate sees is `sh setup.sh`; the script itself was a write inside the workspace.
      await inside.workspace.writeFile(
        'setup.sh',
        [
          'printf "#!/bin/sh\\ntouch /tmp/hook-ran\\n" > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit',
          'printf "#!/bin/sh\\ntouch /tmp/hook-ran\\n" > .husky/pre-commit',
          'printf "[core]\\n\\tfsmonitor = ./monitor.sh\\n" >> .git/config',
          'mv .git .git-old && mkdir -p .git/hooks && cp -r .git-old/* .git/ && printf "#!/bin/sh\\n" > .git/hooks/post-checkout',
          'echo ordinary > work.txt',
          '',
        ].join('\n'),
      );
      const result = await inside.exec({ command: 'sh setup.sh; cat work.txt', timeoutMs: 30_000 });
      expect(result.output).toContain('ordinary');
      expect(readFileSync(path.join(project, 'work.txt'), 'utf8')).toBe('ordinary\n');
    } finally {
      await mounted.destroy(mountedHandle);
    }
    for (const planted of ['.git/hooks/pre-commit', '.husky/pre-commit', '.git/hooks/post-checkout', '.git-old']) expect(existsSync(path.join(project, planted))).toBe(false);
    expect(readFileSync(path.join(project, '.git', 'config'), 'utf8')).toBe(configBefore);
  });

  test("a package config planted in a host folder mounted into the container loses what npm or yarn would run on the host; the user's own stays", async () => {
    const project = realpathSync(tempDir('hermes-docker-npmrc-'));
    // The user's own configs, there before the session: left as they are while nothing changes them.
    writeFileSync(path.join(project, '.yarnrc.yml'), 'npmRegistryServer: "https://registry.example.org"\n');
    mkdirSync(path.join(project, 'old'));
    writeFileSync(path.join(project, 'old', '.npmrc'), 'registry=https://registry.example.org/\n');
    const mounted = testDriver(serviceEnv, { volumes: [`${project}:/workspace`] });
    const mountedHandle = await mounted.start(newHandle());
    let destroyed = false;
    try {
      const inside = await mounted.attach(mountedHandle);
      const result = await inside.exec({ id: 'plant-npmrc', command: "printf 'script-shell=/workspace/evil.sh\\ncolor=false\\n' > .npmrc; mkdir -p pkg && printf 'node-options=--require /workspace/x.js\\n' > pkg/.npmrc; echo planted", timeoutMs: 30_000 });
      expect(result.output).toContain('planted');
      // The top folder's config is checked after each command, and the command is told.
      expect(readFileSync(path.join(project, '.npmrc'), 'utf8')).not.toContain('script-shell');
      expect(readFileSync(path.join(project, '.npmrc'), 'utf8')).toContain('color=false');
      expect(result.output).toMatch(/removed from a host folder mounted into the container what npm, yarn or git would run on the host: .*\.npmrc/);
      // A file tool's write is checked at once, wherever it lies.
      await inside.workspace.writeFile('/workspace/tools/.npmrc', 'onload-script=/workspace/x.js\n');
      expect(readFileSync(path.join(project, 'tools', '.npmrc'), 'utf8')).not.toContain('onload-script');
      await mounted.destroy(mountedHandle);
      destroyed = true;
    } finally {
      if (!destroyed) await mounted.destroy(mountedHandle);
    }
    // Those in subfolders a command made go at the session's end; the user's untouched ones stay.
    expect(readFileSync(path.join(project, 'pkg', '.npmrc'), 'utf8')).not.toContain('node-options');
    expect(readFileSync(path.join(project, '.yarnrc.yml'), 'utf8')).toContain('npmRegistryServer');
    expect(readFileSync(path.join(project, 'old', '.npmrc'), 'utf8')).toContain('registry=');
  });

  test('a repository made in a host folder mounted into the container, with a hook and a config that runs a program, is disarmed when the session ends', async () => {
    const project = realpathSync(tempDir('hermes-docker-new-repo-'));
    const mounted = testDriver(serviceEnv, { volumes: [`${project}:/workspace`] });
    const mountedHandle = await mounted.start(newHandle());
    // A repository as git makes it (the image has no git), in the folder itself and in a subfolder.
    const plant = (folder: string) =>
      `mkdir -p ${folder}/.git/hooks ${folder}/.git/objects ${folder}/.git/refs && echo 'ref: refs/heads/main' > ${folder}/.git/HEAD && ` +
      `printf '#!/bin/sh\\ntouch /tmp/hook-ran\\n' > ${folder}/.git/hooks/pre-commit && chmod +x ${folder}/.git/hooks/pre-commit && ` +
      `printf '[core]\\n\\tfsmonitor = ./monitor.sh\\n' > ${folder}/.git/config`;
    try {
      const result = await (await mounted.attach(mountedHandle)).exec({ id: 'plant-repositories', command: `${plant('.')} && ${plant('lib/vendor')} && echo planted`, timeoutMs: 30_000 });
      expect(result.output).toContain('planted');
    } finally {
      await mounted.destroy(mountedHandle);
    }
    for (const folder of [project, path.join(project, 'lib', 'vendor')]) {
      expect(existsSync(path.join(folder, '.git', 'hooks', 'pre-commit'))).toBe(false);
      expect(readFileSync(path.join(folder, '.git', 'config'), 'utf8')).not.toContain('fsmonitor');
    }
  });

  test('a walk reads a bounded number of directory entries, however many names a folder holds', async () => {
    await expectWalkBoundedByEntries(environment.workspace, run, '/workspace/walk');
  });

  test('a walk brings a bounded number of bytes of names to the worker, however long the names are', async () => {
    await expectWalkBoundedByBytes(environment.workspace, run, '/workspace/walk-bytes');
  });

  test("the shell-side file tools' walk (the exec-based backends') is bounded in entries and bytes on this host too", async () => {
    const shellSide = new ExecWorkspace((request) => environment.exec(request), '/');
    await expectWalkBoundedByEntries(shellSide, run, '/workspace/walk-shell');
    await expectWalkBoundedByBytes(shellSide, run, '/workspace/walk-shell-bytes');
  });

  test("a command that forges the end-of-command marker and streams on does not bring the worker down", async () => {
    // The marker is on the outer shell's command line, which the command can read; written past
    // the log to that shell's stdout, 1.5 GB once grew one string until the worker threw.
    const forge = [
      'marker=$(tr "\\0" "\\n" < /proc/$PPID/cmdline | grep -ao "__hermes_cwd_[0-9a-f]*__" | head -1)',
      'printf "\\036%s/forged\\n" "$marker" > /proc/$PPID/fd/1',
      'head -c 1500000000 /dev/zero > /proc/$PPID/fd/1',
    ].join('; ');
    const before = process.memoryUsage().rss;
    const result = await environment.exec({ command: forge, timeoutMs: 60_000 });
    expect(result.output.length).toBeLessThan(100_000);
    expect(process.memoryUsage().rss - before).toBeLessThan(300 * 1024 * 1024);
    // The container still answers, and the next command starts where it should.
    expect((await environment.exec({ command: 'echo alive', timeoutMs: 30_000, cwd: '/workspace' })).output).toBe('alive\n');
  }, 90_000);

  test("a disk bound this daemon's storage driver cannot keep refuses the session instead of running it unbounded", async () => {
    // The test daemon's overlay2 lies on ext4, which has no project quotas.
    const bounded = testDriver(serviceEnv, { disk_mb: 256 });
    const session = newHandle();
    try {
      await expect(bounded.start(session)).rejects.toThrow(/disk_mb is set, but this Docker daemon cannot limit a container's disk/);
    } finally {
      await bounded.destroy(session).catch(() => undefined);
    }
  });

  describe('whole sessions', () => {
    let harness: Harness;
    beforeAll(async () => {
      harness = await connectHarness();
    });
    afterAll(async () => {
      await harness.close();
    });

    test('read_file, patch and search_files of /dev/zero, a FIFO and a sparse file leave the worker standing', async () => {
      const terminal = { backend: 'docker' as const, docker: { socket_path: serviceEnv.HERMES_TEST_DOCKER_SOCKET, image: serviceEnv.HERMES_TEST_DOCKER_IMAGE } };
      const script = {
        turns: specialFileSessionTurns([{ tool_calls: [{ name: 'search_files', arguments: { pattern: 'secret', path: '.' } }] }]),
      };
      const before = process.memoryUsage().rss;
      await withScriptedSession(harness, { script, config: { terminal } }, async ({ handle: session, store }) => {
        expect(await session.result()).toMatchObject({ status: 'completed', answer: 'done' });
        const results = await toolResults(store, session);
        expectSpecialFilesRefused(results);
        expect(results[6]).not.toHaveProperty('error');
      });
      // The worker never held one of them: far less than the 4 GB file or a second of /dev/zero.
      expect(process.memoryUsage().rss - before).toBeLessThan(512 * 1024 * 1024);
    }, 180_000);

    test("a hook script kept in a host folder mounted into the container, rewritten from the container, never runs on the worker", async () => {
      // The user's project is bound into the container, and their guard hook lives in it.
      const project = tempDir('hermes-docker-project-');
      mkdirSync(path.join(project, '.hermes'));
      const hook = path.join(project, '.hermes', 'guard.sh');
      writeFileSync(hook, '#!/bin/sh\ncat > /dev/null\n', { mode: 0o755 });
      const leak = path.join(tempDir('hermes-docker-precious-'), 'leak.txt');
      const terminal = {
        backend: 'docker' as const,
        docker: { socket_path: serviceEnv.HERMES_TEST_DOCKER_SOCKET, image: serviceEnv.HERMES_TEST_DOCKER_IMAGE, volumes: [`${project}:/workspace`] },
      };
      const script = {
        turns: [
          // From inside the container: /workspace/.hermes/guard.sh is the host's file.
          { tool_calls: [{ name: 'write_file', arguments: { path: '/workspace/.hermes/guard.sh', content: `#!/bin/sh\ncat > /dev/null\nenv > ${leak}\n` } }] },
          // Any later call runs the hook, on the worker.
          { tool_calls: [{ name: 'terminal', arguments: { command: 'echo next' } }] },
          { content: 'done' },
        ],
      };
      await withScriptedSession(harness, { script, config: { terminal, hooks: [{ event: 'pre_tool_call', command: `sh ${hook}` }] } }, async ({ handle: session, store }) => {
        expect(await session.result()).toMatchObject({ status: 'completed', answer: 'done' });
        // Refused as a hook in a session's workspace: a pre_tool_call hook that cannot run blocks the call.
        for (const result of await toolResults(store, session)) expect(String(result.error)).toMatch(/lies in the session's workspace/);
      });
      expect(existsSync(leak)).toBe(false);
    }, 180_000);

    test('search_files over a folder past the walk bound tells the model its results are partial', async () => {
      const terminal = { backend: 'docker' as const, docker: { socket_path: serviceEnv.HERMES_TEST_DOCKER_SOCKET, image: serviceEnv.HERMES_TEST_DOCKER_IMAGE } };
      const script = {
        turns: [
          // One more name than a walk reads.
          { tool_calls: [{ name: 'terminal', arguments: { command: 'mkdir many && (cd many && seq -f "f%.0f" 1 100001 | xargs touch) && echo ready' } }] },
          { tool_calls: [{ name: 'search_files', arguments: { target: 'files', pattern: 'f1*', path: 'many', limit: 5 } }] },
          { content: 'done' },
        ],
      };
      await withScriptedSession(harness, { script, config: { terminal } }, async ({ handle: session, store }) => {
        expect(await session.result()).toMatchObject({ status: 'completed', answer: 'done' });
        const results = await toolResults(store, session);
        expect(results[0]).toMatchObject({ output: 'ready', exit_code: 0 });
        expect(results[1]).toMatchObject({ truncated: true, note: expect.stringMatching(/^Results are partial: the listing stopped after 100,000 /) });
      });
    }, 180_000);
  });
});

describeWithService('docker-quota', DOCKER_QUOTA_SERVICE_ENV, "docker backend: a session's disk bound", (serviceEnv) => {
  test("a container that writes past disk_mb is stopped by the daemon's quota, not by the host's disk filling", async () => {
    const driver = testDriver({ ...serviceEnv, HERMES_TEST_DOCKER_SOCKET: serviceEnv.HERMES_TEST_DOCKER_QUOTA_SOCKET ?? '' }, { disk_mb: 200 });
    const handle = await driver.start(newHandle());
    try {
      const environment = await driver.attach(handle);
      // 600 MB, in the home folder and in the workdir: both are the container's own layer.
      for (const target of ['/root/fill', '/workspace/fill']) {
        const result = await environment.exec({ command: `head -c 600M /dev/zero > ${target}; echo "rc=$?"; du -sm ${target}; rm -f ${target}`, timeoutMs: 60_000 });
        expect(result.output).toMatch(/Disk quota exceeded/);
        expect(result.output).toMatch(/rc=1/);
        expect(Number(/^(\d+)\s/m.exec(result.output)?.[1])).toBeLessThanOrEqual(200);
      }
    } finally {
      await driver.destroy(handle);
    }
  }, 120_000);
});
