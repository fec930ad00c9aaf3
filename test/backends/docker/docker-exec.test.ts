// Commands in a session's container, against the real test daemon: output, exit codes, cwd,
// environment, PTY, and commands stopped by a timeout, an abort or a later worker.
import { captureExec } from '../../../src/environments/docker/run-exec';
import type { DockerDriver } from '../../../src/environments/docker/docker-driver';
import type { EnvironmentHandle, TerminalEnvironment } from '../../../src/environments/terminal-environment';
import { expectLongCommandContract } from '../../helpers/long-command-contract';
import { describeWithService } from '../../helpers/services';
import { waitFor } from '../../helpers/wait';
import { DOCKER_SERVICE_ENV, dockerClient, newHandle, testDriver } from './docker-fixtures';

describeWithService('docker', DOCKER_SERVICE_ENV, 'docker backend: commands', (serviceEnv) => {
  let driver: DockerDriver;
  let handle: EnvironmentHandle;
  let environment: TerminalEnvironment;

  beforeAll(async () => {
    driver = testDriver(serviceEnv, { env: { FROM_CONFIG: 'configured' }, forward_env: ['HERMES_TEST_FORWARDED'] }, {
      workerEnv: { HERMES_TEST_FORWARDED: 'forwarded', OPENAI_API_KEY: 'sk-not-for-commands' },
    });
    handle = await driver.start(newHandle());
    environment = await driver.attach(handle);
  });
  afterAll(async () => {
    await driver.destroy(handle);
  });

  const run = (command: string, options: { timeoutMs?: number; pty?: boolean; env?: Record<string, string> } = {}) =>
    environment.exec({ command, timeoutMs: options.timeoutMs ?? 20_000, ...options });

  test('a command prints its output and exit code', async () => {
    const result = await run('echo hello from $(cat /etc/debian_version | cut -d. -f1 | sed s/^/debian-/); exit 3');
    expect(result).toMatchObject({ output: 'hello from debian-12\n', exitCode: 3, timedOut: false, interrupted: false });
  });

  test('stdout and stderr come back interleaved in the order they were written', async () => {
    const result = await run('echo out-1; sleep 0.2; echo err-1 >&2; sleep 0.2; echo out-2; sleep 0.2; echo err-2 >&2');
    expect(result.output).toBe('out-1\nerr-1\nout-2\nerr-2\n');
  });

  test('the demultiplexed streams stay apart underneath (stdout as bytes, stderr as text)', async () => {
    const container = dockerClient(serviceEnv).getContainer(handle.id!);
    const result = await captureExec(container, ['bash', '-c', 'printf "out\\n"; printf "err\\n" >&2; exit 7']);
    expect(result).toEqual({ exitCode: 7, stdout: Buffer.from('out\n'), stderr: 'err\n' });
  });

  test('a cd carries over to the next command, and a per-call cwd does not move the session', async () => {
    expect((await run('mkdir -p /workspace/deeper/still && cd deeper/still && pwd')).cwd).toBe('/workspace/deeper/still');
    expect((await run('pwd')).output).toBe('/workspace/deeper/still\n');
    expect((await environment.exec({ command: 'pwd', cwd: '/tmp', timeoutMs: 10_000 })).output).toBe('/tmp\n');
    expect(environment.handle.cwd).toBe('/workspace/deeper/still');
    await run('cd /workspace');
  });

  test('commands see request env, configured env and forwarded names, but no worker secrets', async () => {
    const result = await run('echo "$REQUEST_VAR|$FROM_CONFIG|$HERMES_TEST_FORWARDED|${OPENAI_API_KEY:-unset}"', { env: { REQUEST_VAR: 'a b' } });
    expect(result.output).toBe('a b|configured|forwarded|unset\n');
  });

  test('a timeout kills the whole process group inside the container: exit 124 and a notice', async () => {
    const started = Date.now();
    const result = await run('echo $$ > /tmp/timeout-group; echo begun; sleep 60 & sleep 60; echo never', { timeoutMs: 2000 });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result).toMatchObject({ exitCode: 124, timedOut: true, interrupted: false });
    expect(result.output).toBe('begun\n\n[Command timed out after 2s]');
    const check = await run('kill -0 -- -"$(cat /tmp/timeout-group)" 2>/dev/null && echo alive || echo gone');
    expect(check.output).toBe('gone\n');
  });

  test('an abort interrupts the command (exit 130) and kills it inside the container', async () => {
    const controller = new AbortController();
    const pending = environment.exec({ command: 'echo $$ > /tmp/abort-group; sleep 60', timeoutMs: 60_000, signal: controller.signal });
    await waitFor(() => environment.workspace.stat('/tmp/abort-group'), { timeoutMs: 10_000, what: 'the command to start' });
    controller.abort();
    const result = await pending;
    expect(result).toMatchObject({ exitCode: 130, interrupted: true, timedOut: false });
    expect(result.output).toContain('[Command interrupted]');
    expect((await run('kill -0 -- -"$(cat /tmp/abort-group)" 2>/dev/null && echo alive || echo gone')).output).toBe('gone\n');
  });

  test('a command too long once quoted is not started (exit 126, and what to do); a long one that fits runs', async () => {
    await expectLongCommandContract((command, extra = {}) => environment.exec({ command, timeoutMs: 20_000, ...extra }));
  });

  test('pty mode runs the command on a terminal', async () => {
    expect((await run('tty', { pty: true })).output).toMatch(/^\/dev\/pts\/\d+\r\n$/);
    expect((await run('tty')).output).toBe('not a tty\n');
  });

  test('output streams to onOutput while the command runs, and is bounded in memory', async () => {
    const chunks: string[] = [];
    const result = await environment.exec({
      command: 'echo first; sleep 0.5; seq 1 20000',
      timeoutMs: 20_000,
      maxOutputChars: 1000,
      onOutput: (chunk) => chunks.push(chunk),
    });
    expect(chunks[0]).toBe('first\n');
    expect(chunks.join('')).toContain('\n20000\n');
    expect(result.output).toMatch(/^first\n1\n2\n[\s\S]*OUTPUT TRUNCATED[\s\S]*\n20000\n$/);
  });

  test('a later worker stops a command left running by a worker that died (killOrphan)', async () => {
    const pending = environment.exec({ command: 'echo $$ > /tmp/orphan-group; sleep 60; echo never', id: 'session-call_orphan', timeoutMs: 60_000 });
    await waitFor(() => environment.workspace.stat('/tmp/orphan-group'), { timeoutMs: 10_000, what: 'the command to start' });
    const later = await testDriver(serviceEnv).attach(handle);
    await later.killOrphan('session-call_orphan');
    const result = await pending;
    expect(result.output).not.toContain('never');
    expect(result.exitCode).toBe(143);
    expect((await run('kill -0 -- -"$(cat /tmp/orphan-group)" 2>/dev/null && echo alive || echo gone')).output).toBe('gone\n');
    // Nothing is left to kill once a command has finished.
    await expect(later.killOrphan('session-call_orphan')).resolves.toBeUndefined();
  });

  test('a command cannot escape the hardening: no new privileges, few capabilities, no network', async () => {
    const result = await run("grep -E '^(NoNewPrivs|CapEff)' /proc/self/status; ls /sys/class/net");
    expect(result.output).toMatch(/NoNewPrivs:\s+1/);
    // CHOWN, DAC_OVERRIDE, FOWNER, KILL, SETGID, SETUID = bits 0,1,3,5,6,7.
    expect(result.output).toMatch(/CapEff:\s+00000000000000eb/);
    expect(result.output.trim().split('\n').pop()).toBe('lo');
  });
});
