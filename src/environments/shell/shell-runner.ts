// The one thing a sandbox backend must provide to get a whole TerminalEnvironment: a way to run a
// bash script inside it and stream what it prints. Everything else (cwd tracking, timeouts, process
// kills, background processes, files) is built on top from shell scripts, once, for every backend.
import { shellQuote } from '../shell-quote';

export interface ShellRunRequest {
  /** A bash script; the runner runs it with `bash -c` however its backend spells that. */
  script: string;
  /** Variables for the script (runners without an env option put them in the script: `exportLines`). */
  env?: Record<string, string>;
  /** The caller's own deadline; backends with a server-side limit use it, with slack, as a backstop. */
  timeoutMs: number;
  /** Output as it arrives (stdout and stderr interleaved; the script folds stderr in already). */
  onOutput: (chunk: string) => void;
  /**
   * Aborted when the caller stops waiting (after it killed the command in the sandbox): the runner
   * must settle promptly and release what it holds (stream readers, a local child process).
   */
  signal: AbortSignal;
}

/** Runs the script and resolves with its exit code. Rejects when the backend cannot be reached. */
export type ShellRunner = (request: ShellRunRequest) => Promise<number>;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `export K='v'` lines for runners whose backend has no (cheap) env option. */
export function exportLines(env: Record<string, string> | undefined): string {
  return Object.entries(env ?? {})
    .filter(([name]) => ENV_NAME.test(name))
    .map(([name, value]) => `export ${name}=${shellQuote(value)}\n`)
    .join('');
}
