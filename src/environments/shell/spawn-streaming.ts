// Runs a local program in its own process group and streams its output: the host side of CLI
// backends (`apptainer exec`) and of the local stand-ins in tests. Aborting kills the whole group.
import { spawn } from 'node:child_process';
import os from 'node:os';
import { StringDecoder } from 'node:string_decoder';
import { killProcessGroup } from '../local-environment';

export interface SpawnStreamingOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  onOutput: (chunk: string) => void;
  signal?: AbortSignal;
  /** Time between SIGTERM and SIGKILL of the group when aborted. */
  killGraceMs?: number;
  /** Called with the child's pid once it runs (its process-group id too). */
  onSpawn?: (pid: number) => void;
}

/** Stop reading shortly after the program exits even if a grandchild still holds the pipe open. */
const DRAIN_AFTER_EXIT_MS = 300;

/** Resolves with the exit code (128 + signal number when killed); rejects when it cannot start. */
export function spawnStreaming(file: string, args: readonly string[], options: SpawnStreamingOptions): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(options.env ? { env: options.env } : {}),
      ...(options.cwd ? { cwd: options.cwd } : {}),
    });
    const decoders = [new StringDecoder('utf8'), new StringDecoder('utf8')] as const;
    child.stdout.on('data', (data: Buffer) => emit(decoders[0].write(data)));
    child.stderr.on('data', (data: Buffer) => emit(decoders[1].write(data)));
    function emit(text: string) {
      if (text) options.onOutput(text);
    }
    if (child.pid) options.onSpawn?.(child.pid);

    let exitCode: number | undefined;
    let drainTimer: NodeJS.Timeout | undefined;
    let settled = false;
    const onAbort = () => killProcessGroup(child.pid, options.killGraceMs ?? 1000);
    const finish = () => {
      if (settled) return;
      settled = true;
      if (drainTimer) clearTimeout(drainTimer);
      options.signal?.removeEventListener('abort', onAbort);
      emit(decoders[0].end() + decoders[1].end());
      resolve(exitCode ?? 1);
    };
    child.once('error', (error) => {
      options.signal?.removeEventListener('abort', onAbort);
      reject(error);
    });
    child.once('exit', (code, signal) => {
      exitCode = code ?? (signal ? 128 + (os.constants.signals[signal] ?? 0) : 1);
      drainTimer = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish();
      }, DRAIN_AFTER_EXIT_MS);
    });
    child.once('close', () => {
      if (exitCode !== undefined) finish();
    });
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
  });
}
