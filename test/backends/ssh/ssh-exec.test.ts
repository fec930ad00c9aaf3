// Commands on the SSH backend against the real test sshd: output, exit codes and signals, PTY,
// the session cwd and environment, timeouts and cancellation that kill the remote process group,
// a later worker stopping an orphaned command, and 20 commands at once over one connection.
import { expectLongCommandContract } from '../../helpers/long-command-contract';
import { describeWithService } from '../../helpers/services';
import type { SshDriver } from '../../../src/environments/ssh/ssh-driver';
import type { TerminalEnvironment } from '../../../src/environments/terminal-environment';
import { groupAlive, newHandle, remoteProcessExists, run, SSH_SERVICE_ENV, testDriver, uniqueSessionId } from './ssh-fixtures';

describeWithService('sshd', SSH_SERVICE_ENV, 'ssh backend: commands', (serviceEnv) => {
  let driver: SshDriver;
  let environment: TerminalEnvironment;
  let home: string;

  beforeAll(async () => {
    driver = testDriver(serviceEnv);
    const handle = await driver.start(newHandle());
    environment = await driver.attach(handle);
    home = String(handle.details?.home);
  });
  afterAll(async () => {
    await driver.destroy(environment.handle);
    await driver.releaseAll();
  });

  test('start connects and resolves the workdir to an absolute path; the handle names the host', async () => {
    const handle = await driver.start(newHandle(uniqueSessionId(), `~/work-${uniqueSessionId()}`));
    expect(handle.id).toBe(`${serviceEnv.HERMES_TEST_SSH_USER}@${serviceEnv.HERMES_TEST_SSH_HOST}:${serviceEnv.HERMES_TEST_SSH_PORT}`);
    expect(handle.cwd).toMatch(new RegExp(`^${home}/work-st-`));
    const attached = await driver.attach(handle);
    expect(await run(attached, `cd ${handle.cwd} && pwd && whoami`)).toBe(`${handle.cwd}\n${serviceEnv.HERMES_TEST_SSH_USER}`);
    await run(attached, `rmdir ${handle.cwd}`);
  });

  test('output, exit code, and stderr interleaved with stdout in order', async () => {
    const result = await environment.exec({ command: 'echo one; echo two >&2; echo three; exit 3', timeoutMs: 10_000 });
    expect(result).toMatchObject({ output: 'one\ntwo\nthree\n', exitCode: 3, timedOut: false, interrupted: false });
    expect((await environment.exec({ command: 'true', timeoutMs: 10_000 })).exitCode).toBe(0);
    expect((await environment.exec({ command: 'nonexistent-command-xyz', timeoutMs: 10_000 })).exitCode).toBe(127);
  });

  test('a command killed by a signal exits 128+n and says which signal', async () => {
    const killed = await environment.exec({ command: 'echo before; kill -KILL $$', timeoutMs: 10_000 });
    expect(killed.exitCode).toBe(137);
    expect(killed.output).toBe('before\n\n[Command terminated by signal SIGKILL]');
    const terminated = await environment.exec({ command: 'kill -TERM $$', timeoutMs: 10_000 });
    expect(terminated.exitCode).toBe(143);
    expect(terminated.output).toContain('SIGTERM');
    // A child killed by a signal is the shell's ordinary 128+n status.
    expect((await environment.exec({ command: 'sleep 30 & kill -KILL $!; wait $!', timeoutMs: 10_000 })).exitCode).toBe(137);
  });

  test('a command too long once quoted is not started (exit 126, and what to do); a long one that fits runs', async () => {
    await expectLongCommandContract((command, extra = {}) => environment.exec({ command, timeoutMs: 20_000, ...extra }));
  });

  test('pty: true runs the command on a pseudo-terminal, with stderr folded into it', async () => {
    const result = await environment.exec({ command: 'tty; [ -t 0 ] && [ -t 1 ] && echo both-tty; echo on-stderr >&2', timeoutMs: 10_000, pty: true });
    expect(result.exitCode).toBe(0);
    expect(result.output).toMatch(/^\/dev\/pts\/\d+\r?\nboth-tty\r?\non-stderr/);
    const plain = await environment.exec({ command: 'tty', timeoutMs: 10_000 });
    expect(plain.output.trim()).toBe('not a tty');
  });

  test('the working directory follows cd between commands; a per-command cwd does not move it', async () => {
    const session = await driver.attach(environment.handle);
    expect((await session.exec({ command: 'cd /tmp && mkdir -p hermes-ssh-cwd && cd hermes-ssh-cwd', timeoutMs: 10_000 })).cwd).toBe('/tmp/hermes-ssh-cwd');
    expect(session.handle.cwd).toBe('/tmp/hermes-ssh-cwd');
    expect((await session.exec({ command: 'pwd', timeoutMs: 10_000 })).output).toBe('/tmp/hermes-ssh-cwd\n');
    const elsewhere = await session.exec({ command: 'pwd; cd /', timeoutMs: 10_000, cwd: '/usr' });
    expect(elsewhere.output).toBe('/usr\n');
    expect(session.handle.cwd).toBe('/tmp/hermes-ssh-cwd');
    // A PTY command's cd persists too.
    await session.exec({ command: 'cd /var', timeoutMs: 10_000, pty: true });
    expect(session.handle.cwd).toBe('/var');
    // A directory with quotes and spaces survives the quoting.
    const odd = `/tmp/it's a "dir" $(x)`;
    await run(session, `mkdir -p '/tmp/it'"'"'s a "dir" $(x)'`);
    expect((await session.exec({ command: 'pwd', timeoutMs: 10_000, cwd: odd })).output).toBe(`${odd}\n`);
    await run(session, `rm -rf /tmp/hermes-ssh-cwd '/tmp/it'"'"'s a "dir" $(x)'`);
  });

  test('~ means the remote home, in a cwd and in workspace paths', async () => {
    expect((await environment.exec({ command: 'pwd', timeoutMs: 10_000, cwd: '~' })).output).toBe(`${home}\n`);
    expect(environment.workspace.resolve('~/notes.txt')).toBe(`${home}/notes.txt`);
    expect(environment.workspace.resolve('~')).toBe(home);
  });

  test('environment variables arrive through quoted exports (servers drop env requests)', async () => {
    const value = `it's "quoted" $(not run) \`nor this\` \\ and\na newline`;
    const result = await environment.exec({ command: 'printf "%s|%s" "$ODD_VALUE" "$SECOND"', timeoutMs: 10_000, env: { ODD_VALUE: value, SECOND: 'two' } });
    expect(result.output).toBe(`${value}|two`);
    await expect(environment.exec({ command: 'true', timeoutMs: 10_000, env: { 'BAD NAME': 'x' } })).rejects.toThrow(/Invalid environment variable name/);
  });

  test('passthrough variables of the worker are exported; the rest of its environment is not', async () => {
    process.env.HERMES_SSH_TEST_TOKEN = 'secret-for-the-build';
    process.env.HERMES_SSH_TEST_OTHER = 'not-forwarded';
    try {
      const passing = testDriver(serviceEnv, {}, { envPassthrough: ['HERMES_SSH_TEST_TOKEN'] });
      const attached = await passing.attach(await passing.start(newHandle()));
      expect(await run(attached, 'echo "[$HERMES_SSH_TEST_TOKEN] [$HERMES_SSH_TEST_OTHER]"')).toBe('[secret-for-the-build] []');
      await passing.releaseAll();
    } finally {
      delete process.env.HERMES_SSH_TEST_TOKEN;
      delete process.env.HERMES_SSH_TEST_OTHER;
    }
  });

  test('output is bounded (head and tail kept) and streamed as it arrives', async () => {
    const chunks: string[] = [];
    const result = await environment.exec({
      command: 'seq 1 20000; echo end',
      timeoutMs: 20_000,
      maxOutputChars: 1000,
      onOutput: (chunk) => chunks.push(chunk),
    });
    expect(result.output).toMatch(/^1\n2\n3\n/);
    expect(result.output).toMatch(/OUTPUT TRUNCATED/);
    expect(result.output).toMatch(/19999\n20000\nend\n$/);
    expect(chunks.join('')).toHaveLength(Array.from({ length: 20000 }, (_, index) => `${index + 1}\n`).join('').length + 4);
  });

  test('a command that leaves a background process holding its output returns when it exits', async () => {
    const started = Date.now();
    const result = await environment.exec({ command: 'sleep 60 & echo "bg=$!"', timeoutMs: 30_000 });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(result.exitCode).toBe(0);
    const pid = /bg=(\d+)/.exec(result.output)?.[1];
    expect(pid).toBeDefined();
    await run(environment, `kill ${pid}`);
  });

  test('a timeout kills the whole remote process group and reports exit 124', async () => {
    const started = Date.now();
    const result = await environment.exec({ command: 'echo pgid=$$; sleep 300 & sleep 300', timeoutMs: 1000 });
    expect(Date.now() - started).toBeLessThan(8000);
    expect(result).toMatchObject({ exitCode: 124, timedOut: true, interrupted: false });
    expect(result.output).toMatch(/\[Command timed out after 1s\]$/);
    const pgid = /pgid=(\d+)/.exec(result.output)?.[1];
    expect(pgid).toBeDefined();
    expect(await groupAlive(environment, pgid!)).toBe(false);
  });

  test('an abort (activity cancelled) kills the remote command and reports exit 130', async () => {
    const controller = new AbortController();
    let pgid: string | undefined;
    const running = environment.exec({
      command: 'echo pgid=$$; sleep 300',
      timeoutMs: 60_000,
      signal: controller.signal,
      onOutput: (chunk) => {
        pgid ??= /pgid=(\d+)/.exec(chunk)?.[1];
        if (pgid) controller.abort();
      },
    });
    const result = await running;
    expect(result).toMatchObject({ exitCode: 130, interrupted: true, timedOut: false });
    expect(result.output).toMatch(/\[Command interrupted\]$/);
    expect(await groupAlive(environment, pgid!)).toBe(false);
  });

  test('killOrphan from another worker stops a command started with an id', async () => {
    const token = uniqueSessionId('orphan');
    const id = `${uniqueSessionId()}-call_1`;
    const first = environment.exec({ command: `echo started; sleep 300 # ${token}`, timeoutMs: 120_000, id });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await remoteProcessExists(environment, token)).toBe(true);

    const otherWorker = testDriver(serviceEnv);
    const other = await otherWorker.attach(environment.handle);
    await other.killOrphan(id);
    expect(await remoteProcessExists(environment, token)).toBe(false);
    const result = await first;
    expect(result.exitCode).toBe(143);
    // Nothing left to kill: a second call is harmless, as is an unknown id.
    await other.killOrphan(id);
    await other.killOrphan('never-started');
    await otherWorker.releaseAll();
  });

  test('20 commands at once over one connection all succeed, despite the server allowing 10 sessions', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, index) => environment.exec({ command: `sleep 0.3; echo "$PPID n${index}"`, timeoutMs: 30_000, cwd: '/' })),
    );
    expect(results.map((result) => result.exitCode)).toEqual(Array.from({ length: 20 }, () => 0));
    expect(results.map((result) => result.output.trim().split(' ')[1])).toEqual(Array.from({ length: 20 }, (_, index) => `n${index}`));
    // One sshd session process served them all: a single connection.
    expect(new Set(results.map((result) => result.output.split(' ')[0])).size).toBe(1);
  });

  test('per-command latency over a warm connection', async () => {
    const rounds = 30;
    const started = process.hrtime.bigint();
    for (let index = 0; index < rounds; index += 1) await environment.exec({ command: 'true', timeoutMs: 10_000 });
    const perExecMs = Number(process.hrtime.bigint() - started) / 1e6 / rounds;
    console.log(`ssh exec latency: ${perExecMs.toFixed(2)} ms per command (${rounds} sequential, loopback)`);
    expect(perExecMs).toBeLessThan(100);
  });
});
