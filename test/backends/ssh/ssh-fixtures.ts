// Shared setup for the SSH backend tests against the real test sshd (scripts/services/sshd.sh):
// settings for it, drivers, unique session ids, and a way to cut a connection from the server side.
import { configSchema } from '../../../src/config/schema';
import { SshDriver, type SshDriverOptions, type SshSettings } from '../../../src/environments/ssh/ssh-driver';
import type { EnvironmentHandle, TerminalEnvironment } from '../../../src/environments/terminal-environment';

export const SSH_SERVICE_ENV = ['HERMES_TEST_SSH_HOST', 'HERMES_TEST_SSH_PORT', 'HERMES_TEST_SSH_USER', 'HERMES_TEST_SSH_KEY', 'HERMES_TEST_SSH_FINGERPRINT'] as const;

/** The `terminal.ssh` section (as written in a config file) for the test server. */
export function sshSection(env: Record<string, string>) {
  return {
    host: env.HERMES_TEST_SSH_HOST,
    port: Number(env.HERMES_TEST_SSH_PORT),
    user: env.HERMES_TEST_SSH_USER,
    key_path: env.HERMES_TEST_SSH_KEY,
    host_fingerprint: env.HERMES_TEST_SSH_FINGERPRINT,
  };
}

export function sshSettings(env: Record<string, string>, overrides: Partial<SshSettings> = {}): SshSettings {
  return configSchema.parse({ terminal: { ssh: { ...sshSection(env), ...overrides } } }).terminal.ssh;
}

export function testDriver(env: Record<string, string>, overrides: Partial<SshSettings> = {}, options: SshDriverOptions = {}): SshDriver {
  return new SshDriver(sshSettings(env, overrides), { killGraceMs: 500, ...options });
}

let counter = 0;
export function uniqueSessionId(prefix = 'st'): string {
  counter += 1;
  return `${prefix}-${process.pid}-${Date.now().toString(36)}-${counter}`;
}

export function newHandle(sessionId = uniqueSessionId(), cwd = '~'): EnvironmentHandle {
  return { backend: 'ssh', cwd, sessionId };
}

/** Runs a short command and returns its trimmed output, failing on a non-zero exit. */
export async function run(environment: TerminalEnvironment, command: string): Promise<string> {
  const result = await environment.exec({ command, timeoutMs: 15_000, cwd: '/' });
  if (result.exitCode !== 0) throw new Error(`'${command}' exited ${result.exitCode}: ${result.output}`);
  return result.output.trim();
}

/**
 * Kills the server-side sshd process serving this environment's connection (the parent of every
 * command it runs), as a network failure or a server restart would: the connection drops.
 */
export async function killServerSideOfConnection(environment: TerminalEnvironment): Promise<number> {
  const sessionPid = Number(await run(environment, 'echo $PPID'));
  if (!Number.isInteger(sessionPid) || sessionPid <= 1) throw new Error(`unexpected sshd session pid ${sessionPid}`);
  process.kill(sessionPid, 'SIGKILL');
  return sessionPid;
}

/** True while some process on the host has `token` (letters, digits, dashes) in its command line. */
export async function remoteProcessExists(environment: TerminalEnvironment, token: string): Promise<boolean> {
  // '[x]yz' matches 'xyz' but not itself, so the checking command never finds itself.
  const pattern = `[${token.slice(0, 1)}]${token.slice(1)}`;
  return (await run(environment, `pgrep -f -- '${pattern}' >/dev/null && echo yes || echo no`)) === 'yes';
}

/**
 * True while process group `pgid` has a live member on the host. Zombies do not count: this
 * machine's init does not reap orphans, so killed processes can linger as zombies.
 */
export async function groupAlive(environment: TerminalEnvironment, pgid: string | number): Promise<boolean> {
  const check = `ps -eo pgid=,stat= | awk -v g=${Number(pgid)} '$1 == g && $2 !~ /^Z/ { found = 1 } END { print found ? "alive" : "gone" }'`;
  return (await run(environment, check)) === 'alive';
}
