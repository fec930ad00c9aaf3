// Every backend hands a command to bash as one argument (`bash -c <script>`), quoted once or
// twice around the backend's own wrapper. The kernel takes at most MAX_ARG_STRLEN in one argument
// of a program it starts: past that the start fails with E2BIG, on the worker, in a container or
// on a remote host, in words no model can act on. Each `'` of a command takes four characters
// once quoted, so even a command under the terminal tool's 100,000 characters can pass it.
import type { ExecResult } from './terminal-environment';

/** What the kernel takes in one argument (MAX_ARG_STRLEN, 32 pages, with its closing NUL). */
export const MAX_ARGUMENT_BYTES = 128 * 1024 - 1;

/**
 * The result of a command whose `script` (the argument that carries it) is longer than `limitBytes`,
 * what the backend takes: not started, exit 126, and what to do. Undefined when it fits.
 */
export function tooLongToStart(script: string, cwd: string, limitBytes = MAX_ARGUMENT_BYTES): ExecResult | undefined {
  const bytes = Buffer.byteLength(script);
  if (bytes <= limitBytes) return undefined;
  const output = `The command was not started: quoted for the shell it is ${bytes} bytes, and the system passes at most ${limitBytes} in one argument. Write the script to a file with write_file, then run the file.`;
  return { output, exitCode: 126, timedOut: false, interrupted: false, cwd };
}
