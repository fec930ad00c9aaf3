// The Apptainer/Singularity backend: one persistent instance per session, commands through
// `exec instance://`, found again by name (`instance list --json`) from any worker on the host.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { prepareWorkdir } from '../shell/prepare-workdir';
import { ShellEnvironment } from '../shell/shell-environment';
import type { ShellRunner } from '../shell/shell-runner';
import { spawnStreaming } from '../shell/spawn-streaming';
import { BackendUnavailableError, type EnvironmentDriver, type EnvironmentHandle, type TerminalEnvironment } from '../terminal-environment';
import {
  cliEnvironment,
  envArguments,
  findBinary,
  instanceExecArgs,
  instanceNameFor,
  instanceStartArgs,
  listInstances,
  overlayDirFor,
  runCli,
  type SingularitySettings,
} from './apptainer-cli';

/**
 * RLIMIT_NPROC and RLIMIT_AS, soft and hard (a command cannot raise them again). Apptainer's user
 * namespace (its default without setuid) makes the kernel count the instance's own processes
 * against the first; in setuid mode it counts every process of the worker's user.
 */
function resourceCaps(settings: SingularitySettings): string {
  return `ulimit -u ${settings.max_processes} 2>/dev/null; ulimit -v ${settings.max_memory_mb * 1024} 2>/dev/null`;
}

export interface SingularityDriverOptions {
  /** Time between SIGTERM and SIGKILL when a command is stopped. */
  killGraceMs?: number;
}

const START_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 60_000;

export class SingularityDriver implements EnvironmentDriver {
  readonly backend = 'singularity' as const;

  constructor(
    private readonly settings: SingularitySettings,
    private readonly options: SingularityDriverOptions = {},
  ) {}

  async unavailableReason(): Promise<string | undefined> {
    if (await findBinary(this.settings.binary)) return undefined;
    return this.settings.binary
      ? `terminal.singularity.binary '${this.settings.binary}' is not an executable file`
      : 'neither apptainer nor singularity is on PATH (install Apptainer or set terminal.singularity.binary)';
  }

  async start(handle: EnvironmentHandle): Promise<EnvironmentHandle> {
    const binary = await this.binary();
    const instance = handle.id ?? instanceNameFor(handle.sessionId ?? randomBytes(6).toString('hex'));
    if (!(await listInstances(binary)).includes(instance)) {
      const overlay = overlayDirFor(this.settings, instance);
      if (overlay) await mkdir(overlay, { recursive: true });
      const result = await runCli(binary, instanceStartArgs(this.settings, instance), START_TIMEOUT_MS);
      if (result.exitCode !== 0) {
        throw new Error(`Could not start Apptainer instance ${instance}: ${result.stderr.trim() || result.stdout.trim() || `exit ${result.exitCode}`}`);
      }
    }
    const started: EnvironmentHandle = { ...handle, id: instance, details: { ...handle.details, binary: path.basename(binary), image: this.settings.image } };
    // The image rarely has the working directory; the writable layer takes it (best effort).
    return prepareWorkdir(await this.attach(started), started);
  }

  async attach(handle: EnvironmentHandle): Promise<TerminalEnvironment> {
    if (!handle.id) throw new BackendUnavailableError('The Apptainer environment has not been started (no instance name)');
    const binary = await this.binary();
    return new ShellEnvironment(handle, {
      run: this.runner(binary, handle.id),
      // The instance shares the host's process table and memory and, without root, no cgroup bounds
      // it: a fork bomb or a runaway allocation in a script (this backend's commands are not judged)
      // would starve the worker's host.
      commandPrelude: resourceCaps(this.settings),
      ...(this.options.killGraceMs !== undefined ? { killGraceMs: this.options.killGraceMs } : {}),
    });
  }

  /** Stops the instance; its overlay directory (if any) stays, as the overlay is meant to persist. */
  async destroy(handle: EnvironmentHandle): Promise<void> {
    const instance = handle.id ?? (handle.sessionId ? instanceNameFor(handle.sessionId) : undefined);
    if (!instance) return;
    const binary = await this.binary();
    if (!(await listInstances(binary)).includes(instance)) return;
    const result = await runCli(binary, ['instance', 'stop', instance], STOP_TIMEOUT_MS);
    if (result.exitCode !== 0 && (await listInstances(binary)).includes(instance)) {
      throw new Error(`Could not stop Apptainer instance ${instance}: ${result.stderr.trim() || `exit ${result.exitCode}`}`);
    }
  }

  /** A persistent overlay holds, on this machine, what the instances write. */
  hostFolders(): string[] {
    return this.settings.overlay_dir ? [path.resolve(this.settings.overlay_dir)] : [];
  }

  /** `apptainer exec` is a child of this worker: aborting kills its process group here. */
  private runner(binary: string, instance: string): ShellRunner {
    return async ({ script, env, onOutput, signal }) => {
      const { args, processEnv } = envArguments(binary, env);
      let head = '';
      const exitCode = await spawnStreaming(binary, instanceExecArgs(instance, args, script), {
        env: cliEnvironment(processEnv),
        onOutput: (chunk) => {
          if (head.length < 2000) head += chunk;
          onOutput(chunk);
        },
        signal,
        killGraceMs: this.options.killGraceMs ?? 1000,
      });
      if (exitCode === 255 && /no instance found/i.test(head)) {
        throw new BackendUnavailableError(`Apptainer instance ${instance} is not running on this host`);
      }
      return exitCode;
    };
  }

  private async binary(): Promise<string> {
    const binary = await findBinary(this.settings.binary);
    if (!binary) throw new BackendUnavailableError((await this.unavailableReason()) ?? 'apptainer not found');
    return binary;
  }
}
