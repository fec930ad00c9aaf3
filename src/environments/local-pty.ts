// Pseudo-terminals on the local machine through node-pty: interactive programs (REPLs, CLIs that
// check isatty) get a real terminal. The child leads its own session, so its pid is also its
// process-group id and a timeout or kill reaches everything it started.
import type * as NodePty from 'node-pty';
import { isDirectory } from './git-control';

/** Original's background PTY size (30 rows × 120 columns). */
export const PTY_COLUMNS = 120;
export const PTY_ROWS = 30;

let nodePty: typeof NodePty | undefined;

/** Loaded on first use: a worker without the native module still runs every non-PTY command. */
function loadNodePty(): typeof NodePty {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  nodePty ??= require('node-pty') as typeof NodePty;
  return nodePty;
}

export interface PtyChild {
  readonly pid: number;
  /** Resolves with the exit code once the program has exited and its output is drained. */
  readonly exited: Promise<{ exitCode: number; signal: number }>;
  write(data: string): void;
}

/**
 * Starts `argv` (the sandbox's launcher for `bash -c script`) under a new pseudo-terminal, in
 * `cwd` when it is a folder (else in `/`: the script's own `cd` then says what is wrong).
 * `onOutput` receives the terminal's output with `\r\n` line ends turned into `\n` (a lone `\r`,
 * as progress bars use, is kept).
 */
export function spawnInPty(argv: { file: string; args: string[] }, env: Record<string, string>, cwd: string, onOutput: (text: string) => void): PtyChild {
  const pty = loadNodePty().spawn(argv.file, argv.args, {
    name: env.TERM || 'xterm-256color',
    cols: PTY_COLUMNS,
    rows: PTY_ROWS,
    // The launcher and the shell reading the terminal are in that folder from their first
    // instant: a look at the reader's folder while it starts (terminal-reader-folder.ts) finds the
    // folder its command runs in, not `/`.
    cwd: isDirectory(cwd) ? cwd : '/',
    env,
  });
  const lineEnds = new CrLfNormalizer();
  pty.onData((data) => {
    const text = lineEnds.push(data);
    if (text) onOutput(text);
  });
  const exited = new Promise<{ exitCode: number; signal: number }>((resolve) => {
    // node-pty reports the exit after the terminal's output has been read (or 200 ms later).
    pty.onExit(({ exitCode, signal }) => {
      const rest = lineEnds.end();
      if (rest) onOutput(rest);
      resolve({ exitCode, signal: signal ?? 0 });
    });
  });
  return { pid: pty.pid, exited, write: (data) => pty.write(data) };
}

/** The shell's view of an exit: the code, or 128 + the signal that ended it. */
export function shellExitCode({ exitCode, signal }: { exitCode: number; signal: number }): number {
  return signal ? 128 + signal : exitCode;
}

/** Turns a terminal's `\r\n` (and `\r\r\n`) into `\n` across chunk boundaries. */
export class CrLfNormalizer {
  private pending = '';

  push(chunk: string): string {
    const text = this.pending + chunk;
    const trailing = /\r+$/.exec(text);
    this.pending = trailing ? trailing[0] : '';
    return text.slice(0, text.length - this.pending.length).replace(/\r+\n/g, '\n');
  }

  end(): string {
    const rest = this.pending;
    this.pending = '';
    return rest;
  }
}
