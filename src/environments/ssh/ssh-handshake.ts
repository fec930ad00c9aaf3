// Opening an SSH connection: TCP, host-key check against the pin, then authentication. Failures
// come back as errors that say what to fix: a refused host key, or an unreachable/refusing host.
import { Socket } from 'node:net';
import { Client, type ConnectConfig } from 'ssh2';
import { BackendUnavailableError } from '../terminal-environment';
import { HostKeyRejectedError, hostKeyRejection } from './host-key';

export interface SshTarget {
  host: string;
  port: number;
  user: string;
}

export interface SshConnectionOptions extends SshTarget {
  privateKey?: Buffer;
  passphrase?: string;
  password?: string;
  /** ssh-agent socket, used when no key or password is configured. */
  agent?: string;
  hostFingerprint?: string;
  trustUnknownHost: boolean;
  /** Command channels in flight; SFTP and the control channel come on top of these. */
  maxChannels: number;
  keepaliveMs: number;
  readyTimeoutMs: number;
  /** Bound on one file operation over SFTP (default 120 s). */
  sftpTimeoutMs?: number;
}

export function targetName(target: SshTarget): string {
  return `${target.user}@${target.host}:${target.port}`;
}

/**
 * A ready (authenticated) client and its socket. The socket is our own so that the connection
 * can stop holding the process open while it is idle (`socket.unref()`).
 */
export function handshake(options: SshConnectionOptions): Promise<{ client: Client; socket: Socket }> {
  const target = targetName(options);
  return new Promise((resolve, reject) => {
    const client = new Client();
    const socket = new Socket();
    let rejection: string | undefined;
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      client.end();
      socket.destroy();
      reject(error);
    };
    client.once('ready', () => {
      if (settled) return;
      settled = true;
      client.setNoDelay(true); // 2.5 ms instead of ~44 ms per command (Nagle + delayed ACKs)
      resolve({ client, socket });
    });
    client.on('error', (error: Error) => {
      fail(rejection ? new HostKeyRejectedError(rejection) : new BackendUnavailableError(`Cannot connect to ${target}: ${error.message}`));
    });
    client.once('close', () => fail(new BackendUnavailableError(`Connection to ${target} closed before it was ready`)));
    const config: ConnectConfig = {
      sock: socket,
      username: options.user,
      readyTimeout: options.readyTimeoutMs,
      // ssh2's keepalive timer would keep the process alive: see connection-keepalive.ts.
      keepaliveInterval: 0,
      hostVerifier: (key: Buffer) => {
        try {
          rejection = hostKeyRejection(key, { target, expected: options.hostFingerprint, trustUnknownHost: options.trustUnknownHost });
        } catch (error) {
          rejection = error instanceof Error ? error.message : String(error);
        }
        return rejection === undefined;
      },
      ...(options.privateKey ? { privateKey: options.privateKey } : {}),
      ...(options.passphrase ? { passphrase: options.passphrase } : {}),
      ...(options.password ? { password: options.password } : {}),
      ...(options.agent && !options.privateKey && !options.password ? { agent: options.agent } : {}),
    };
    try {
      socket.connect(options.port, options.host);
      client.connect(config);
    } catch (error) {
      fail(new BackendUnavailableError(`Cannot connect to ${target}: ${error instanceof Error ? error.message : String(error)}`));
    }
  });
}
