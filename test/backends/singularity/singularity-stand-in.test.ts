// The Apptainer/Singularity backend against a stand-in `apptainer` on PATH (Debian has no
// Apptainer): the stand-in records its argv and runs commands with bwrap in a rootfs folder, so
// these tests check our command lines and the instance lifecycle, not Apptainer's isolation.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../../src/config/load';
import type { SingularitySettings } from '../../../src/environments/singularity/apptainer-cli';
import { SingularityDriver } from '../../../src/environments/singularity/singularity-driver';
import type { EnvironmentHandle } from '../../../src/environments/terminal-environment';
import { sandboxBehaviourTests } from '../../helpers/sandbox-backend-suite';
import { describeWithService } from '../../helpers/services';
import { writeApptainerStandIn, type ApptainerStandIn } from './apptainer-stand-in';

const settings = (overrides: Partial<SingularitySettings> = {}): SingularitySettings => ({
  ...loadConfig({ env: {}, flags: {} }).terminal.singularity,
  image: '/images/debian.sif',
  ...overrides,
});

let counter = 0;
const sessionId = () => `s${process.pid}x${Date.now().toString(36)}x${(counter += 1)}`;

describeWithService('bwrap', ['HERMES_TEST_BWRAP'], '[stand-in apptainer] Apptainer backend', ({ HERMES_TEST_BWRAP: bwrap = 'bwrap' }) => {
  let dir: string;
  let standIn: ApptainerStandIn;
  let siteStorage: string;
  let savedPath: string | undefined;

  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'hermes-apptainer-'));
    // A site's apptainer.conf binds its shared storage into every instance.
    siteStorage = path.join(dir, 'site-scratch');
    mkdirSync(siteStorage);
    writeFileSync(path.join(siteStorage, 'results.csv'), 'shared data of the site\n');
    standIn = writeApptainerStandIn(dir, { bwrap, siteBindPaths: [siteStorage] });
    savedPath = process.env.PATH;
    process.env.PATH = `${standIn.binDir}${path.delimiter}${savedPath ?? ''}`;
  });

  afterAll(async () => {
    // Anything a failed test left running goes with its instance.
    const instances = path.join(dir, 'state', 'instances');
    for (const name of existsSync(instances) ? readdirSync(instances) : []) {
      await new SingularityDriver(settings()).destroy({ backend: 'singularity', cwd: '/', id: name }).catch(() => undefined);
    }
    process.env.PATH = savedPath;
    rmSync(dir, { recursive: true, force: true });
  });

  const newHandle = (id = sessionId()): EnvironmentHandle => ({ backend: 'singularity', cwd: '/workspace', sessionId: id });
  const since = (count: number) => standIn.invocations().slice(count);

  test('[stand-in apptainer] is available when apptainer is on PATH, and says what is missing when not', async () => {
    expect(await new SingularityDriver(settings()).unavailableReason()).toBeUndefined();
    expect(await new SingularityDriver(settings({ binary: '/nowhere/apptainer' })).unavailableReason()).toBe(
      "terminal.singularity.binary '/nowhere/apptainer' is not an executable file",
    );
    process.env.PATH = '/nonexistent-bin';
    try {
      expect(await new SingularityDriver(settings()).unavailableReason()).toMatch(/neither apptainer nor singularity is on PATH/);
    } finally {
      process.env.PATH = `${standIn.binDir}${path.delimiter}${savedPath ?? ''}`;
    }
  });

  test('[stand-in apptainer] falls back to a `singularity` binary when there is no apptainer', async () => {
    const only = mkdtempSync(path.join(os.tmpdir(), 'hermes-singularity-bin-'));
    symlinkSync(path.join(standIn.binDir, 'apptainer'), path.join(only, 'singularity'));
    process.env.PATH = `${only}${path.delimiter}/usr/bin${path.delimiter}/bin`;
    try {
      const driver = new SingularityDriver(settings());
      expect(await driver.unavailableReason()).toBeUndefined();
      const handle = await driver.start(newHandle());
      expect(handle.details).toMatchObject({ binary: 'singularity' });
      // A value with a comma travels as SINGULARITYENV_ for this binary.
      const result = await (await driver.attach(handle)).exec({ command: 'printf %s "$LIST"', env: { LIST: 'a,b' }, timeoutMs: 20_000 });
      expect(result.output).toBe('a,b');
      await driver.destroy(handle);
    } finally {
      process.env.PATH = `${standIn.binDir}${path.delimiter}${savedPath ?? ''}`;
      rmSync(only, { recursive: true, force: true });
    }
  });

  test('[stand-in apptainer] start runs `instance start --containall --no-home --cleanenv --net --network none --no-mount bind-paths --writable-tmpfs IMAGE hermes_<session>` and commands as `exec instance://`', async () => {
    const before = standIn.invocations().length;
    const driver = new SingularityDriver(settings());
    const id = sessionId();
    const handle = await driver.start(newHandle(id));
    expect(handle).toMatchObject({ backend: 'singularity', id: `hermes_${id}`, cwd: '/workspace', details: { binary: 'apptainer', image: '/images/debian.sif', home: '/root' } });
    const calls = since(before);
    expect(calls[0]).toEqual(['instance', 'list', '--json']);
    expect(calls[1]).toEqual(['instance', 'start', '--containall', '--no-home', '--cleanenv', '--net', '--network', 'none', '--no-mount', 'bind-paths', '--writable-tmpfs', '/images/debian.sif', `hermes_${id}`]);
    // The working directory is created in the instance: an exec of `bash -c <wrapped command>`.
    expect(calls[2]?.slice(0, 5)).toEqual(['exec', '--cleanenv', `instance://hermes_${id}`, 'bash', '-c']);
    expect(calls[2]?.[5]).toContain('/workspace');
    expect(calls).toHaveLength(3);

    const environment = await driver.attach(handle);
    const mark = standIn.invocations().length;
    const result = await environment.exec({ command: 'echo "$GREETING from $(pwd)"', env: { GREETING: 'hi there', LIST: 'x,y' }, timeoutMs: 20_000 });
    expect(result).toMatchObject({ exitCode: 0, output: 'hi there from /workspace\n' });
    const [exec] = since(mark);
    // Variables go as --env K=V (the instance was started with --cleanenv); one with a comma as APPTAINERENV_.
    expect(exec?.slice(0, 6)).toEqual(['exec', '--cleanenv', '--env', 'GREETING=hi there', `instance://hermes_${id}`, 'bash']);
    expect(exec?.[6]).toBe('-c');
    expect(exec?.[7]).toContain('builtin cd -- /workspace');
    expect(exec?.[7]).toContain('GREETING from $(pwd)');
    expect((await environment.exec({ command: 'printf %s "$LIST"', env: { LIST: 'x,y' }, timeoutMs: 20_000 })).output).toBe('x,y');
    await driver.destroy(handle);
  });

  test('[stand-in apptainer] a new driver (another worker) re-finds the instance with `instance list --json` instead of starting another; destroy stops it', async () => {
    const id = sessionId();
    const first = new SingularityDriver(settings());
    const handle = await first.start(newHandle(id));
    await (await first.attach(handle)).exec({ command: 'echo persisted > /workspace/state.txt', timeoutMs: 20_000 });

    const before = standIn.invocations().length;
    const second = new SingularityDriver(settings());
    const again = await second.start(handle);
    expect(again.id).toBe(`hermes_${id}`);
    const calls = since(before);
    expect(calls[0]).toEqual(['instance', 'list', '--json']);
    expect(calls.some((call) => call[0] === 'instance' && call[1] === 'start')).toBe(false);
    expect((await (await second.attach(again)).exec({ command: 'cat /workspace/state.txt', timeoutMs: 20_000 })).output).toBe('persisted\n');

    const stopMark = standIn.invocations().length;
    await second.destroy(again);
    expect(since(stopMark)).toEqual([
      ['instance', 'list', '--json'],
      ['instance', 'stop', `hermes_${id}`],
    ]);
    expect(existsSync(path.join(dir, 'state', 'instances', `hermes_${id}`))).toBe(false);
    // Destroying again only looks.
    const againMark = standIn.invocations().length;
    await second.destroy(again);
    expect(since(againMark)).toEqual([['instance', 'list', '--json']]);
    // Commands against a stopped instance fail as "backend unavailable" (retryable), not as output.
    await expect((await second.attach(again)).exec({ command: 'true', timeoutMs: 20_000 })).rejects.toThrow(/is not running/);
  });

  test('[stand-in apptainer] with overlay_dir the instance gets `--overlay <dir>/hermes_<session>`, which outlives it', async () => {
    const overlayDir = path.join(dir, 'overlays');
    const id = sessionId();
    const driver = new SingularityDriver(settings({ overlay_dir: overlayDir }));
    const before = standIn.invocations().length;
    const handle = await driver.start(newHandle(id));
    const overlay = path.join(overlayDir, `hermes_${id}`);
    expect(since(before)[1]).toEqual(['instance', 'start', '--containall', '--no-home', '--cleanenv', '--net', '--network', 'none', '--no-mount', 'bind-paths', '--overlay', overlay, '/images/debian.sif', `hermes_${id}`]);
    await (await driver.attach(handle)).workspace.writeFile('kept.txt', 'survives the instance');
    await driver.destroy(handle);
    expect(readFileSync(path.join(overlay, 'workspace', 'kept.txt'), 'utf8')).toBe('survives the instance');

    const restarted = await driver.start(newHandle(id));
    expect((await (await driver.attach(restarted)).workspace.readFile('kept.txt')).toString()).toBe('survives the instance');
    await driver.destroy(restarted);
  });

  test("[stand-in apptainer] a command reaches nothing on the worker's loopback (a Temporal server there, say) unless network is on", async () => {
    // What listens on the worker's loopback: the embedded Temporal server has no access control.
    const listener = net.createServer((socket) => socket.end('worker-loopback-secret\n'));
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const { port } = listener.address() as net.AddressInfo;
    const probe = `exec 3<>/dev/tcp/127.0.0.1/${port} && head -c 100 <&3 || echo unreachable`;
    try {
      for (const network of [false, true]) {
        const driver = new SingularityDriver(settings({ network }));
        const handle = await driver.start(newHandle());
        try {
          const result = await (await driver.attach(handle)).exec({ command: probe, timeoutMs: 20_000 });
          expect(result.output.includes('worker-loopback-secret')).toBe(network);
          if (!network) expect(result.output).toContain('unreachable');
        } finally {
          await driver.destroy(handle);
        }
      }
    } finally {
      await new Promise((resolve) => listener.close(resolve));
    }
  });

  test("[stand-in apptainer] a command reaches none of the site's bind paths (its shared storage) unless site_binds is on", async () => {
    const probe = `cat ${siteStorage}/results.csv 2>/dev/null || echo unreachable; rm -f ${siteStorage}/results.csv 2>/dev/null; true`;
    const contained = new SingularityDriver(settings());
    const handle = await contained.start(newHandle());
    try {
      const result = await (await contained.attach(handle)).exec({ command: probe, timeoutMs: 20_000 });
      expect(result.output).toContain('unreachable');
    } finally {
      await contained.destroy(handle);
    }
    expect(existsSync(path.join(siteStorage, 'results.csv'))).toBe(true);
    const opened = new SingularityDriver(settings({ site_binds: true }));
    const openedHandle = await opened.start(newHandle());
    try {
      expect((await (await opened.attach(openedHandle)).exec({ command: `cat ${siteStorage}/results.csv`, timeoutMs: 20_000 })).output).toBe('shared data of the site\n');
    } finally {
      await opened.destroy(openedHandle);
    }
  });

  test("[stand-in apptainer] a command and what it starts run under a process cap (RLIMIT_NPROC) it cannot raise, as a fork bomb in a script would starve the host's process table", async () => {
    for (const [overrides, cap] of [[{}, '512'], [{ max_processes: 64 }, '64']] as const) {
      const driver = new SingularityDriver(settings(overrides));
      const handle = await driver.start(newHandle());
      try {
        const environment = await driver.attach(handle);
        const result = await environment.exec({ command: 'ulimit -Su; ulimit -Hu; ulimit -u unlimited 2>/dev/null || echo refused', timeoutMs: 20_000 });
        expect(result.output.trim().split('\n')).toEqual([cap, cap, 'refused']);
        // A background process is started through a command too.
        const started = await environment.background.start({ command: 'ulimit -Hu', cwd: '/workspace' });
        expect((await environment.background.wait(started.id, 10_000))?.outputTail.trim()).toBe(cap);
      } finally {
        await driver.destroy(handle);
      }
    }
  });

  test('[stand-in apptainer] each process of a command has a bounded address space it cannot raise (max_memory_mb)', async () => {
    const driver = new SingularityDriver(settings({ max_memory_mb: 256 }));
    const handle = await driver.start(newHandle());
    try {
      const result = await (await driver.attach(handle)).exec({ command: 'ulimit -Hv; ulimit -v unlimited 2>/dev/null || echo refused', timeoutMs: 20_000 });
      expect(result.output.trim().split('\n')).toEqual([String(256 * 1024), 'refused']);
    } finally {
      await driver.destroy(handle);
    }
  });

  test('[stand-in apptainer] a timed-out command leaves no `apptainer exec` (bwrap) process behind on the host', async () => {
    const id = sessionId();
    const driver = new SingularityDriver(settings(), { killGraceMs: 500 });
    const handle = await driver.start(newHandle(id));
    const result = await (await driver.attach(handle)).exec({ command: 'sleep 60', timeoutMs: 1000 });
    expect(result).toMatchObject({ exitCode: 124, timedOut: true });
    const bwrapProcesses = () =>
      readdirSync('/proc')
        .filter((entry) => /^\d+$/.test(entry))
        .filter((entry) => {
          try {
            const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
            return cmdline.startsWith(bwrap) && cmdline.includes(`hermes_${id}`) && !readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]?.startsWith('Z');
          } catch {
            return false;
          }
        });
    expect(bwrapProcesses()).toEqual([]);
    await driver.destroy(handle);
  });

  describe('[stand-in apptainer] shared sandbox behaviour', () => {
    sandboxBehaviourTests(() => ({
      newDriver: () => new SingularityDriver(settings(), { killGraceMs: 500 }),
      handle: newHandle(),
    }));
  });
});
