// The SSH connection itself against the real test sshd: host-key pinning (mismatch and unknown
// hosts refused, both fingerprint spellings accepted), configuration problems reported, and a
// dropped connection replaced before the next command, or reported when it cut one short.
import { readFileSync } from 'node:fs';
import { fingerprintOf, HostKeyRejectedError, parseFingerprint } from '../../../src/environments/ssh/host-key';
import { BackendUnavailableError } from '../../../src/environments/terminal-environment';
import { describeWithService } from '../../helpers/services';
import { waitFor } from '../../helpers/wait';
import { killServerSideOfConnection, newHandle, remoteProcessExists, run, SSH_SERVICE_ENV, testDriver, uniqueSessionId } from './ssh-fixtures';

/** A well-formed fingerprint of some other key. */
const OTHER_FINGERPRINT = fingerprintOf(Buffer.from('not the host key')).openssh;

describe('ssh host-key fingerprints', () => {
  test('OpenSSH SHA256:<base64> and hex spellings name the same digest', () => {
    const key = Buffer.from('some key blob');
    const { openssh, hex } = fingerprintOf(key);
    expect(openssh).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
    expect(parseFingerprint(openssh)).toBe(hex);
    expect(parseFingerprint(`${openssh}=`)).toBe(hex);
    expect(parseFingerprint(hex.toUpperCase())).toBe(hex);
    expect(parseFingerprint(hex.match(/../g)!.join(':'))).toBe(hex);
    expect(() => parseFingerprint('MD5:12:34')).toThrow(/not a SHA-256 fingerprint/);
  });
});

describeWithService('sshd', SSH_SERVICE_ENV, 'ssh backend: connections and host keys', (serviceEnv) => {
  const target = `${serviceEnv.HERMES_TEST_SSH_USER}@${serviceEnv.HERMES_TEST_SSH_HOST}:${serviceEnv.HERMES_TEST_SSH_PORT}`;

  test('the pinned host key is accepted, in either spelling', async () => {
    const openssh = testDriver(serviceEnv);
    expect(await openssh.unavailableReason()).toBeUndefined();
    const hex = testDriver(serviceEnv, { host_fingerprint: parseFingerprint(serviceEnv.HERMES_TEST_SSH_FINGERPRINT!) });
    expect(await hex.unavailableReason()).toBeUndefined();
    await openssh.releaseAll();
    await hex.releaseAll();
  });

  test('a host key that does not match the pin is refused, naming both fingerprints', async () => {
    const driver = testDriver(serviceEnv, { host_fingerprint: OTHER_FINGERPRINT });
    const reason = await driver.unavailableReason();
    expect(reason).toContain(`Host key mismatch for ${target}`);
    expect(reason).toContain(`expected ${OTHER_FINGERPRINT}`);
    expect(reason).toContain(`presented ${serviceEnv.HERMES_TEST_SSH_FINGERPRINT}`);
    await expect(driver.start(newHandle())).rejects.toBeInstanceOf(HostKeyRejectedError);
    await driver.releaseAll();
  });

  test('a host without a pinned key is refused unless trust_unknown_host is set', async () => {
    const refusing = testDriver(serviceEnv, { host_fingerprint: undefined });
    const reason = await refusing.unavailableReason();
    expect(reason).toContain(`Refusing ${target}: its host key (${serviceEnv.HERMES_TEST_SSH_FINGERPRINT}) is not pinned`);
    expect(reason).toContain('trust_unknown_host');
    const trusting = testDriver(serviceEnv, { host_fingerprint: undefined, trust_unknown_host: true });
    expect(await trusting.unavailableReason()).toBeUndefined();
    expect(await run(await trusting.attach(await trusting.start(newHandle())), 'echo trusted')).toBe('trusted');
    await refusing.releaseAll();
    await trusting.releaseAll();
  });

  test('configuration and login problems are reported by unavailableReason, and attach fails retryably', async () => {
    expect(await testDriver(serviceEnv, { host: undefined }).unavailableReason()).toBe('terminal.ssh.host is not set');
    expect(await testDriver(serviceEnv, { user: undefined }).unavailableReason()).toBe('terminal.ssh.user is not set');
    expect(await testDriver(serviceEnv, { key_path: '/nonexistent/key' }).unavailableReason()).toBe('terminal.ssh.key_path /nonexistent/key does not exist');
    expect(await testDriver(serviceEnv, { host_fingerprint: 'nonsense' }).unavailableReason()).toMatch(/is not a SHA-256 fingerprint/);

    const wrongUser = testDriver(serviceEnv, { user: 'root' });
    expect(await wrongUser.unavailableReason()).toMatch(/authentication methods failed/);
    const closedPort = testDriver(serviceEnv, { port: 1 }, { connectTimeoutMs: 3000 });
    expect(await closedPort.unavailableReason()).toMatch(/Cannot connect to .*:1: .*ECONNREFUSED/);
    // Before any command starts, an unreachable host is a retryable infrastructure failure.
    await expect(closedPort.attach({ ...newHandle(), cwd: '/tmp' })).rejects.toBeInstanceOf(BackendUnavailableError);
  });

  test('after the connection is killed, the next command reconnects transparently', async () => {
    const driver = testDriver(serviceEnv);
    const environment = await driver.attach(await driver.start(newHandle()));
    const before = await killServerSideOfConnection(environment);
    const result = await environment.exec({ command: 'echo $PPID', timeoutMs: 10_000 });
    expect(result.exitCode).toBe(0);
    expect(Number(result.output.trim())).not.toBe(before);
    // The file side (SFTP) reconnects too.
    await killServerSideOfConnection(environment);
    await environment.workspace.writeFile(`/tmp/hermes-ssh-reconnect-${process.pid}.txt`, 'again');
    expect((await environment.workspace.readFile(`/tmp/hermes-ssh-reconnect-${process.pid}.txt`)).toString()).toBe('again');
    await run(environment, `rm -f /tmp/hermes-ssh-reconnect-${process.pid}.txt`);
    await driver.releaseAll();
  });

  test('a command whose connection drops mid-way returns its output as interrupted, and its process is killed', async () => {
    const driver = testDriver(serviceEnv);
    const environment = await driver.attach(await driver.start(newHandle()));
    const token = uniqueSessionId('dropped');
    let sessionPid: number | undefined;
    const result = await environment.exec({
      command: `echo session=$PPID; sleep 300 # ${token}`,
      timeoutMs: 120_000,
      id: `${uniqueSessionId()}-call_drop`,
      onOutput: (chunk) => {
        const match = /session=(\d+)/.exec(chunk);
        if (match && !sessionPid) {
          sessionPid = Number(match[1]);
          process.kill(sessionPid, 'SIGKILL');
        }
      },
    });
    expect(result).toMatchObject({ exitCode: 130, interrupted: true, timedOut: false });
    expect(result.output).toContain(`session=${sessionPid}`);
    expect(result.output).toMatch(/\[Command interrupted: the SSH connection to .* was lost\]$/);
    await waitFor(async () => !(await remoteProcessExists(environment, token)), { timeoutMs: 10_000, what: 'the cut-off command to be killed' });
    await driver.releaseAll();
  });

  test('a server that stops answering is detected by the keepalive; the running command is interrupted and killed', async () => {
    const driver = testDriver(serviceEnv, { keepalive_seconds: 1 });
    const environment = await driver.attach(await driver.start(newHandle()));
    const token = uniqueSessionId('frozen');
    let sessionPid: number | undefined;
    try {
      const started = Date.now();
      const result = await environment.exec({
        command: `echo session=$PPID; sleep 300 # ${token}`,
        timeoutMs: 120_000,
        onOutput: (chunk) => {
          const match = /session=(\d+)/.exec(chunk);
          if (match && !sessionPid) {
            sessionPid = Number(match[1]);
            // Frozen, not dead: the TCP connection stays up, but nothing answers on it.
            process.kill(sessionPid, 'SIGSTOP');
          }
        },
      });
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(result).toMatchObject({ exitCode: 130, interrupted: true });
      expect(result.output).toMatch(/the SSH connection to .* was lost/);
      await waitFor(async () => !(await remoteProcessExists(environment, token)), { timeoutMs: 10_000, what: 'the cut-off command to be killed' });
    } finally {
      if (sessionPid) process.kill(sessionPid, 'SIGKILL');
      await driver.releaseAll();
    }
  });

  test('releaseAll closes the connections; the next use opens a new one', async () => {
    const driver = testDriver(serviceEnv);
    const environment = await driver.attach(await driver.start(newHandle()));
    const first = await run(environment, 'echo $PPID');
    await driver.releaseAll();
    expect(await run(environment, 'echo $PPID')).not.toBe(first);
    await driver.releaseAll();
  });

  test('the pinned fingerprint printed by sshd.sh is the one of the host key file', () => {
    const publicKey = readFileSync(`${serviceEnv.HERMES_TEST_SSH_KEY!.replace(/client_ed25519$/, 'host_ed25519_key.pub')}`, 'utf8');
    const blob = Buffer.from(publicKey.split(' ')[1] ?? '', 'base64');
    expect(fingerprintOf(blob).openssh).toBe(serviceEnv.HERMES_TEST_SSH_FINGERPRINT);
  });
});
