// Runs the built command (dist/) and worker as a user would: each spawned process gets a private
// home (session store), cwd and task queue, a scripted model, and is killed after its test.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { ModelScriptInput } from '../../src/model/model-script';
import { startScriptedModelServer, type ScriptedModelServer } from '../../src/model/scripted-model-server';
import { tempDir, uniqueName } from './session-harness';
import { waitFor } from './wait';

export const PROJECT_ROOT = path.resolve(__dirname, '..', '..');
export const CLI_ENTRY = path.join(PROJECT_ROOT, 'dist', 'src', 'cli', 'main.js');
export const WORKER_ENTRY = path.join(PROJECT_ROOT, 'dist', 'worker.js');

/** The tests exercise the built output; a missing build is a setup mistake, not a failure. */
export function requireBuild(): void {
  for (const file of [CLI_ENTRY, WORKER_ENTRY]) {
    if (!existsSync(file)) throw new Error(`${path.relative(PROJECT_ROOT, file)} is missing: run npm run build first`);
  }
}

export interface ProcessResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  durationMs: number;
}

/** A spawned process whose output is collected and whose exit can be awaited with a bound. */
export class SpawnedProcess {
  readonly child: ChildProcess;
  stdout = '';
  stderr = '';
  readonly exited: Promise<ProcessResult>;
  private readonly startedAt = Date.now();

  constructor(readonly label: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }) {
    this.child = spawn(process.execPath, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout?.on('data', (chunk: Buffer) => (this.stdout += chunk.toString()));
    this.child.stderr?.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.exited = new Promise((resolve) => {
      // 'close' (not 'exit') so that all output has been read.
      this.child.once('close', (code, signal) =>
        resolve({ code, signal, stdout: this.stdout, stderr: this.stderr, durationMs: Date.now() - this.startedAt }),
      );
      this.child.once('error', (error) =>
        resolve({ code: null, signal: null, stdout: this.stdout, stderr: `${this.stderr}\n${error.message}`, durationMs: 0 }),
      );
    });
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  waitForExit(timeoutMs: number): Promise<ProcessResult> {
    return withTimeout(this.exited, timeoutMs, () => `${this.label} did not exit within ${timeoutMs} ms${this.describeOutput()}`);
  }

  /** Resolves once stdout contains a match, failing early if the process exits first. */
  async waitForOutput(pattern: RegExp, timeoutMs: number): Promise<string> {
    await waitFor(() => pattern.test(this.stdout) || !this.running, { timeoutMs, what: `${this.label} to print ${pattern}` });
    const match = pattern.exec(this.stdout);
    if (!match) throw new Error(`${this.label} exited before printing ${pattern}${this.describeOutput()}`);
    return match[0];
  }

  signal(signal: NodeJS.Signals): void {
    if (this.running) this.child.kill(signal);
  }

  /** Kills the process if it still runs and waits (bounded) until it is gone. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGKILL');
    await withTimeout(this.exited, 5000, () => `${this.label} (pid ${this.child.pid}) survived SIGKILL`);
  }

  describeOutput(): string {
    return `\n--- stdout ---\n${this.stdout.slice(-3000)}\n--- stderr ---\n${this.stderr.slice(-3000)}`;
  }
}

export interface CliSandbox {
  home: string;
  cwd: string;
  taskQueue: string;
  model: ScriptedModelServer;
  env: NodeJS.ProcessEnv;
}

export interface SandboxOptions {
  script?: ModelScriptInput;
  /** Temporal server; default the one from the global setup. */
  address?: string;
  /** Extra variables (undefined removes one). */
  env?: Record<string, string | undefined>;
}

/**
 * Owns everything a test starts (processes, model servers, temp dirs) so that `cleanup()` in
 * `afterEach` ends it all, even when the test failed halfway.
 */
export class CliTestbed {
  private readonly processes: SpawnedProcess[] = [];
  private readonly cleanups: (() => Promise<void> | void)[] = [];

  async sandbox(options: SandboxOptions = {}): Promise<CliSandbox> {
    const address = options.address ?? process.env.HERMES_TEST_TEMPORAL_ADDRESS;
    if (!address) throw new Error('HERMES_TEST_TEMPORAL_ADDRESS is not set: run integration tests through jest (global setup)');
    const model = await startScriptedModelServer({ script: options.script ?? { turns: [{ content: 'Nothing to do.' }] } });
    this.onCleanup(() => model.close());
    const home = tempDir('hermes-cli-home-');
    const cwd = tempDir('hermes-cli-cwd-');
    this.onCleanup(() => {
      rmSync(home, { recursive: true, force: true });
      rmSync(cwd, { recursive: true, force: true });
    });
    const taskQueue = uniqueName('hermes-cli');
    // A small explicit environment: nothing from the developer's shell (API keys, HERMES_*) leaks in.
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      ...(process.env.TEMPORAL_CLI_PATH ? { TEMPORAL_CLI_PATH: process.env.TEMPORAL_CLI_PATH } : {}),
      HERMES_TEMPORAL_HOME: home,
      TEMPORAL_ADDRESS: address,
      HERMES_TASK_QUEUE: taskQueue,
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: 'test',
      HERMES_MODEL: 'scripted',
      // Model failures are retried quickly rather than after a second.
      HERMES__MODEL__RETRY_INITIAL_INTERVAL_MS: '100',
    };
    for (const [name, value] of Object.entries(options.env ?? {})) {
      if (value === undefined) delete env[name];
      else env[name] = value;
    }
    return { home, cwd, taskQueue, model, env };
  }

  /** `node dist/src/cli/main.js <args>` in the sandbox. */
  cli(sandbox: CliSandbox, args: string[]): SpawnedProcess {
    return this.track(new SpawnedProcess(`hermes-temporal ${args.join(' ')}`, [CLI_ENTRY, ...args], sandbox));
  }

  /** Runs the command to its end (bounded). */
  runCli(sandbox: CliSandbox, args: string[], timeoutMs = 30_000): Promise<ProcessResult> {
    return this.cli(sandbox, args).waitForExit(timeoutMs);
  }

  /** `node dist/worker.js` in the sandbox. */
  worker(sandbox: CliSandbox): SpawnedProcess {
    return this.track(new SpawnedProcess('worker', [WORKER_ENTRY], sandbox));
  }

  onCleanup(cleanup: () => Promise<void> | void): void {
    this.cleanups.push(cleanup);
  }

  async cleanup(): Promise<void> {
    const processes = this.processes.splice(0);
    const cleanups = this.cleanups.splice(0).reverse();
    const errors: unknown[] = [];
    for (const step of [...processes.map((spawned) => () => spawned.stop()), ...cleanups]) {
      try {
        await step();
      } catch (error) {
        errors.push(error);
      }
    }
    if (errors.length) throw errors[0];
  }

  private track(spawned: SpawnedProcess): SpawnedProcess {
    this.processes.push(spawned);
    return spawned;
  }
}

/** The `--json` output of a command: one JSON value per non-empty line. */
export function jsonLines(stdout: string): Record<string, unknown>[] {
  return stdout
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`Not a JSON line: ${line}`);
      }
    });
}

export async function withTimeout<T>(promise: Promise<T>, timeoutMs: number, message: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message())), timeoutMs);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

