// What the local stand-ins for Modal, Daytona and Vercel run commands in: this machine, a temp
// folder as the sandbox's disk, a clean environment (as a fresh sandbox has), and a marker
// variable on every process so "terminate" can find and kill everything the sandbox started.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { spawnStreaming } from '../../src/environments/shell/spawn-streaming';

const SANDBOX_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
export const MARKER_VARIABLE = 'HERMES_STANDIN_SANDBOX';

export interface LocalRunOptions {
  env?: Record<string, string>;
  onOutput: (chunk: string) => void;
  /** Like a remote SDK: aborting stops waiting, it does not kill anything. */
  signal?: AbortSignal;
  /** The process's pid, which is also its process-group id. */
  onSpawn?: (pid: number) => void;
}

export class LocalSandbox {
  readonly id = `sb-${randomBytes(6).toString('hex')}`;
  /** The sandbox's own folder: its workdir lives here. */
  readonly root = mkdtempSync(path.join(os.tmpdir(), 'hermes-stand-in-'));
  running = true;

  /** Runs argv directly (no shell unless argv is one), in the sandbox's clean environment. */
  run(argv: readonly string[], options: LocalRunOptions): Promise<number> {
    if (!this.running) return Promise.reject(new Error(`Sandbox ${this.id} is not running`));
    const [file, ...args] = argv;
    if (!file) return Promise.reject(new Error('empty command'));
    const env = { PATH: SANDBOX_PATH, HOME: this.root, LANG: 'C.UTF-8', ...options.env, [MARKER_VARIABLE]: this.id };
    const done = spawnStreaming(file, args, { env, cwd: this.root, onOutput: options.onOutput, ...(options.onSpawn ? { onSpawn: options.onSpawn } : {}) });
    const signal = options.signal;
    if (!signal) return done;
    return new Promise((resolve, reject) => {
      const onAbort = () => resolve(-1);
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
      void done.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  /** Kills every process the sandbox started (they all carry its marker) and removes its disk. */
  terminate(): void {
    this.running = false;
    for (const pid of processesMarkedWith(this.id)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    rmSync(this.root, { recursive: true, force: true });
  }

  /** Processes of this sandbox still alive (zombies excluded). */
  livingProcesses(): number[] {
    return processesMarkedWith(this.id);
  }
}

export function processesMarkedWith(id: string): number[] {
  const needle = `${MARKER_VARIABLE}=${id}\0`;
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (!readFileSync(`/proc/${entry}/environ`, 'latin1').includes(needle)) continue;
      if (readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]?.startsWith('Z')) continue;
      pids.push(Number(entry));
    } catch {
      // exited while we looked
    }
  }
  return pids;
}
