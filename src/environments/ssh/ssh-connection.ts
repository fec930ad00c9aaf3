// One live SSH connection: pinned host key, keepalive, Nagle off, a channel cap below the
// server's MaxSessions, and one SFTP session reused by all. It holds the process open only while
// it is in use, so an idle cached connection never keeps a worker or CLI from exiting.
import type { Socket } from 'node:net';
import type { Client, ClientChannel, SFTPWrapper } from 'ssh2';
import { BackendUnavailableError } from '../terminal-environment';
import { Semaphore } from '../../semaphore';
import { recordExitStatus } from './command-channel';
import { startKeepalive } from './connection-keepalive';
import { handshake, targetName, type SshConnectionOptions } from './ssh-handshake';

export { targetName, type SshConnectionOptions, type SshTarget } from './ssh-handshake';

/** The connection went away before a command's channel was open: nothing ran, so retrying is safe. */
export class ConnectionGoneError extends Error {
  override readonly name = 'ConnectionGoneError';
}

const PTY_MODES = { term: 'xterm-256color', rows: 40, cols: 120 };
/** Refused channel opens are retried for up to ~5 s (see openWithRetry). */
const CHANNEL_OPEN_ATTEMPTS = 60;
const KEEPALIVE_MAX_MISSED = 3;
/** As long as the exec-based backends give a file command: a 16 MiB read or a bounded walk takes seconds. */
const DEFAULT_SFTP_TIMEOUT_MS = 120_000;

export class SshConnection {
  private closed = false;
  private busy = 0;
  private sftpSession?: Promise<SFTPWrapper>;
  /** How to abandon each operation running on an SFTP session, should the session be closed. */
  private readonly sftpUsers = new Map<SFTPWrapper, Set<(error: Error) => void>>();
  private readonly sftpTimeoutMs: number;
  private readonly commands: Semaphore;
  /** Kill and bookkeeping commands get their own slot, so a full connection can still stop one. */
  private readonly controls = new Semaphore(1);

  private constructor(
    private readonly client: Client,
    private readonly socket: Socket,
    readonly target: string,
    options: SshConnectionOptions,
  ) {
    this.commands = new Semaphore(options.maxChannels);
    this.sftpTimeoutMs = options.sftpTimeoutMs ?? DEFAULT_SFTP_TIMEOUT_MS;
    const stopKeepalive = startKeepalive(client, options.keepaliveMs, KEEPALIVE_MAX_MISSED, () => socket.destroy());
    const markClosed = () => {
      this.closed = true;
      this.sftpSession = undefined;
      stopKeepalive();
    };
    client.on('close', markClosed).on('end', markClosed);
    // After the handshake an error means the transport is broken (reset, protocol error).
    client.on('error', () => {
      markClosed();
      client.end();
    });
    socket.unref();
  }

  /** Connects and authenticates; a refused host key is a HostKeyRejectedError, anything else BackendUnavailableError. */
  static async open(options: SshConnectionOptions): Promise<SshConnection> {
    const { client, socket } = await handshake(options);
    return new SshConnection(client, socket, targetName(options), options);
  }

  /** Runs `work` with the connection counted as in use (its socket keeps the process alive). */
  async inUse<T>(work: () => Promise<T>): Promise<T> {
    const done = this.hold();
    try {
      return await work();
    } finally {
      done();
    }
  }

  private hold(): () => void {
    if (this.busy++ === 0) this.socket.ref();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.busy === 0) this.socket.unref();
    };
  }

  get alive(): boolean {
    return !this.closed;
  }

  /**
   * Opens a channel and starts `command` on it (waiting for a free slot first). Resolves once the
   * server accepted the command; the slot is freed when the channel closes.
   */
  async startCommand(command: string, options: { pty?: boolean; control?: boolean } = {}): Promise<ClientChannel> {
    const done = this.hold();
    const release = await (options.control ? this.controls : this.commands).acquire();
    try {
      if (this.closed) throw new ConnectionGoneError(`The connection to ${this.target} was closed`);
      const channel = await this.openWithRetry(command, Boolean(options.pty));
      channel.once('close', () => {
        release();
        done();
      });
      return channel;
    } catch (error) {
      release();
      done();
      if (error instanceof ConnectionGoneError) throw error;
      const message = error instanceof Error ? error.message : String(error);
      // 'Unable to exec' means the request was sent: the command may have started, so no retry.
      if (this.closed && message !== 'Unable to exec') throw new ConnectionGoneError(`The connection to ${this.target} was lost: ${message}`);
      throw new BackendUnavailableError(`Could not start a command on ${this.target}: ${message}`);
    }
  }

  /**
   * The server frees a session slot only after it reaped the command, which can be a moment after
   * the client saw the channel close; a refused channel open ran nothing, so it is tried again.
   */
  private async openWithRetry(command: string, pty: boolean): Promise<ClientChannel> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await new Promise<ClientChannel>((resolve, reject) => {
          try {
            this.client.exec(command, { pty: pty ? PTY_MODES : false }, (error, opened) => {
              if (error) return reject(error);
              recordExitStatus(opened);
              resolve(opened);
            });
          } catch (error) {
            // ssh2 throws 'Not connected' synchronously when the socket is already gone.
            this.closed = true;
            reject(error instanceof Error ? error : new Error(String(error)));
          }
        });
      } catch (error) {
        const refused = error instanceof Error && /Channel open failure/i.test(error.message);
        if (!refused || this.closed || attempt >= CHANNEL_OPEN_ATTEMPTS) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.min(10 * attempt, 100)));
      }
    }
  }

  /**
   * Runs `operation` on the SFTP session, bounded in time. The server answers one request after
   * another, so one that never returns (an open of a file the agent swapped for a FIFO waits for
   * a writer) would hold every file tool of every session on this host. Past the bound the session
   * is closed, the next operation gets a fresh one, and this one fails with ETIMEDOUT; the others
   * queued behind it fail with ConnectionGoneError, which the pool repeats on the fresh session.
   */
  withSftp<T>(operation: (sftp: SFTPWrapper) => Promise<T>): Promise<T> {
    return this.inUse(async () => {
      const session = this.sftp();
      const sftp = await session;
      let abandon: (error: Error) => void = () => undefined;
      const abandoned = new Promise<never>((_, reject) => (abandon = reject));
      const users = this.sftpUsers.get(sftp) ?? new Set();
      this.sftpUsers.set(sftp, users.add(abandon));
      const timer = setTimeout(() => {
        abandon(sftpTimedOut(this.target, this.sftpTimeoutMs));
        this.discardSftp(session, sftp);
      }, this.sftpTimeoutMs);
      const running = operation(sftp);
      try {
        return await Promise.race([running, abandoned]);
      } finally {
        clearTimeout(timer);
        users.delete(abandon);
        running.catch(() => undefined);
        abandoned.catch(() => undefined);
      }
    });
  }

  /** Closes an SFTP session that stopped answering; the operations still on it are told to repeat. */
  private discardSftp(session: Promise<SFTPWrapper>, sftp: SFTPWrapper): void {
    if (this.sftpSession === session) this.sftpSession = undefined;
    const users = this.sftpUsers.get(sftp) ?? new Set();
    this.sftpUsers.delete(sftp);
    for (const abandon of users) abandon(new ConnectionGoneError(`The SFTP session on ${this.target} was closed under this operation`));
    sftp.end();
  }

  /** The connection's SFTP session, opened on first use and kept. */
  private sftp(): Promise<SFTPWrapper> {
    if (this.closed) return Promise.reject(new ConnectionGoneError(`The connection to ${this.target} was closed`));
    this.sftpSession ??= new Promise<SFTPWrapper>((resolve, reject) => {
      try {
        this.client.sftp((error, sftp) => {
          if (error) {
            this.sftpSession = undefined;
            const message = `Cannot open SFTP on ${this.target}: ${error.message}`;
            reject(this.closed ? new ConnectionGoneError(message) : new BackendUnavailableError(message));
            return;
          }
          const opened = this.sftpSession;
          sftp.on('close', () => {
            if (this.sftpSession === opened) this.sftpSession = undefined;
            this.sftpUsers.delete(sftp);
          });
          resolve(sftp);
        });
      } catch (error) {
        this.sftpSession = undefined;
        reject(new ConnectionGoneError(`The connection to ${this.target} was lost: ${error instanceof Error ? error.message : String(error)}`));
      }
    });
    return this.sftpSession;
  }

  end(): void {
    this.closed = true;
    this.client.end();
  }
}

function sftpTimedOut(target: string, timeoutMs: number): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`The SFTP server on ${target} did not answer within ${Math.round(timeoutMs / 1000)} s`);
  error.code = 'ETIMEDOUT';
  return error;
}
