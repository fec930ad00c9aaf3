// Follows one command's channel to its end: output as it arrives, the exit status or signal, and
// an end even when a background grandchild keeps the output pipe open after the command exited.
import { StringDecoder } from 'node:string_decoder';
import type { ClientChannel } from 'ssh2';

/**
 * After the command exits, its remaining output is read until the stream has been quiet for
 * 300 ms (5 s at most): a background grandchild may hold the pipe open indefinitely.
 */
const QUIET_AFTER_EXIT_MS = 300;
const DRAIN_AFTER_EXIT_MAX_MS = 5000;

export interface ChannelOutcome {
  /** Exit status; null when the command died of a signal or no status arrived. */
  code: number | null;
  /** `SIGTERM` and the like, when the command died of a signal. */
  signal?: string;
  /** True when the channel closed without any exit status (a dropped connection, an odd server). */
  noExitStatus: boolean;
}

interface ExitStatus {
  code: number | null;
  signal?: string;
}

const exitStatuses = new WeakMap<ClientChannel, ExitStatus>();

/**
 * Starts listening for the channel's exit status. Call it in the exec callback itself: ssh2 can
 * parse the exit status in the same tick as the exec reply, before any awaiting code listens.
 */
export function recordExitStatus(channel: ClientChannel): void {
  channel.once('exit', (code: number | null, signal?: string) => {
    exitStatuses.set(channel, { code: typeof code === 'number' ? code : null, ...(signal ? { signal } : {}) });
  });
}

export interface WatchedChannel {
  done: Promise<ChannelOutcome>;
  /** Gives up on the channel: closes it and settles `done` with what is known. */
  abandon(): void;
}

export function watchChannel(
  channel: ClientChannel,
  handlers: { onStdout: (text: string) => void; onStderr: (text: string) => void },
): WatchedChannel {
  const stdout = new StringDecoder('utf8');
  const stderr = new StringDecoder('utf8');
  let exit: ExitStatus | undefined;
  let drainTimer: NodeJS.Timeout | undefined;
  let drainDeadline = Infinity;
  /** Once exited: (re)arms the quiet timer, so output still in flight is not cut off. */
  const armDrain = () => {
    if (drainDeadline === Infinity) return;
    if (drainTimer) clearTimeout(drainTimer);
    drainTimer = setTimeout(() => abandon(), Math.max(0, Math.min(QUIET_AFTER_EXIT_MS, drainDeadline - Date.now())));
  };
  let finish: () => void = () => undefined;

  const done = new Promise<ChannelOutcome>((resolve) => {
    let settled = false;
    finish = () => {
      if (settled) return;
      settled = true;
      if (drainTimer) clearTimeout(drainTimer);
      const tail = stdout.end();
      if (tail) handlers.onStdout(tail);
      const errorTail = stderr.end();
      if (errorTail) handlers.onStderr(errorTail);
      resolve({ code: exit?.code ?? null, ...(exit?.signal ? { signal: exit.signal } : {}), noExitStatus: exit === undefined });
    };
  });

  channel.on('data', (data: Buffer) => {
    armDrain();
    const text = stdout.write(data);
    if (text) handlers.onStdout(text);
  });
  channel.stderr.on('data', (data: Buffer) => {
    armDrain();
    const text = stderr.write(data);
    if (text) handlers.onStderr(text);
  });
  const onExit = () => {
    exit = exitStatuses.get(channel);
    drainDeadline = Date.now() + DRAIN_AFTER_EXIT_MAX_MS;
    armDrain();
  };
  if (exitStatuses.has(channel)) onExit();
  else channel.once('exit', onExit);
  channel.once('close', () => {
    exit ??= exitStatuses.get(channel);
    finish();
  });
  // No input for foreground commands: EOF at once (a PTY ignores it; its readers wait for the timeout).
  channel.end();

  function abandon(): void {
    try {
      channel.close();
    } catch {
      // Already closed with its connection.
    }
    finish();
  }

  return { done, abandon };
}
