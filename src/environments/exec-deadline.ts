// The two ways a running command is stopped from outside — its timeout expiring or its abort
// signal firing — and how the result then reads for the model: exit 124 or 130 with a note.
// Shared by every backend so they all report stops the same way.
import type { ExecRequest, ExecResult } from './terminal-environment';

export class ExecDeadline {
  timedOut = false;
  interrupted = false;
  private readonly timer: NodeJS.Timeout;
  private readonly onAbort = () => {
    this.interrupted = true;
    this.stop();
  };

  /** `stop` kills the command on its backend; it is called at most as often as a stop happens. */
  constructor(
    private readonly request: Pick<ExecRequest, 'timeoutMs' | 'signal'>,
    private readonly stop: () => void,
  ) {
    this.timer = setTimeout(() => {
      this.timedOut = true;
      stop();
    }, request.timeoutMs);
    if (request.signal?.aborted) this.onAbort();
    else request.signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  get stopped(): boolean {
    return this.timedOut || this.interrupted;
  }

  /** Output and exit code as the model sees them. */
  conclude(output: string, exitCode: number): { output: string; exitCode: number } {
    if (this.timedOut) return { output: `${output}\n[Command timed out after ${Math.round(this.request.timeoutMs / 1000)}s]`, exitCode: 124 };
    if (this.interrupted) return { output: `${output}\n[Command interrupted]`, exitCode: 130 };
    return { output, exitCode };
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.request.signal?.removeEventListener('abort', this.onAbort);
  }
}

/**
 * The result for a command whose stop came before its start: it is never started, as a kill sent
 * while a sandbox is still starting can miss a process forked just after it.
 */
export function stoppedBeforeStart(request: Pick<ExecRequest, 'signal'>, cwd: string): ExecResult | undefined {
  if (!request.signal?.aborted) return undefined;
  return { output: '[Command interrupted]', exitCode: 130, timedOut: false, interrupted: true, cwd };
}
