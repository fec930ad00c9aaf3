// The Apptainer/SingularityCE command line: finding the binary, the exact arguments of each
// instance command, and running the short lifecycle commands (start, list, stop).
import { execFile } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import path from 'node:path';
import type { HermesConfig } from '../../config/schema';
import { sanitizeEnvironment } from '../sanitize-env';
import { trustedDirectories } from '../trusted-programs';

export type SingularitySettings = HermesConfig['terminal']['singularity'];

/** Looked up on PATH in this order when `terminal.singularity.binary` is unset. */
export const BINARY_CANDIDATES = ['apptainer', 'singularity'] as const;

/** The binary's absolute path, or undefined when none is installed. */
export async function findBinary(configured: string | undefined, searchPath = process.env.PATH ?? ''): Promise<string | undefined> {
  const candidates = configured ? [configured] : [...BINARY_CANDIDATES];
  for (const candidate of candidates) {
    // It runs outside any sandbox: never from a relative PATH entry or a node_modules folder.
    const directories = candidate.includes('/') ? [''] : trustedDirectories(searchPath);
    for (const directory of directories) {
      const file = directory ? path.join(directory, candidate) : path.resolve(candidate);
      if (await access(file, constants.X_OK).then(() => true, () => false)) return file;
    }
  }
  return undefined;
}

/** One instance per session; the name is all a later worker needs to find it again. */
export function instanceNameFor(sessionId: string): string {
  return `hermes_${sessionId.replace(/[^A-Za-z0-9_]/g, '_')}`;
}

/** Where a session's persistent overlay lives, when `overlay_dir` is set. */
export function overlayDirFor(settings: SingularitySettings, instance: string): string | undefined {
  return settings.overlay_dir ? path.join(settings.overlay_dir, instance) : undefined;
}

/**
 * `instance start`: contained (no host home, no host env, private /tmp and /dev), with a
 * persistent overlay when configured, else a writable tmpfs that dies with the instance. Apptainer
 * shares the host's network unless told otherwise, the worker's loopback with it (an embedded
 * Temporal server without access control, its abstract sockets): a network namespace of the
 * instance's own with only its loopback, unless `network` asks for the host's. Unprivileged users
 * may start it (it needs user namespaces, as the instance itself does without setuid). Likewise
 * `--containall` keeps the bind paths of apptainer.conf (a site's shared storage): none unless
 * `site_binds` asks for them.
 */
export function instanceStartArgs(settings: SingularitySettings, instance: string): string[] {
  const overlay = overlayDirFor(settings, instance);
  return [
    'instance',
    'start',
    '--containall',
    '--no-home',
    '--cleanenv',
    ...(settings.network ? [] : ['--net', '--network', 'none']),
    ...(settings.site_binds ? [] : ['--no-mount', 'bind-paths']),
    ...(overlay ? ['--overlay', overlay] : ['--writable-tmpfs']),
    settings.image,
    instance,
  ];
}

/**
 * `exec` into the instance. `--cleanenv` again because exec would otherwise pass the worker's
 * environment in; the command's own variables go as `--env`.
 */
export function instanceExecArgs(instance: string, envArgs: readonly string[], script: string): string[] {
  return ['exec', '--cleanenv', ...envArgs, `instance://${instance}`, 'bash', '-c', script];
}

/**
 * `--env K=V` per variable. Apptainer splits `--env` values on commas, so a value with a comma
 * travels as an `APPTAINERENV_K` (or `SINGULARITYENV_K`) variable of the exec process instead.
 */
export function envArguments(binary: string, env: Record<string, string> | undefined): { args: string[]; processEnv: Record<string, string> } {
  const prefix = path.basename(binary).startsWith('singularity') ? 'SINGULARITYENV_' : 'APPTAINERENV_';
  const args: string[] = [];
  const processEnv: Record<string, string> = {};
  for (const [name, value] of Object.entries(env ?? {})) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) continue;
    if (value.includes(',')) processEnv[`${prefix}${name}`] = value;
    else args.push('--env', `${name}=${value}`);
  }
  return { args, processEnv };
}

/** The CLI's own environment: the worker's, without its secrets (the instance gets none of it anyway). */
export function cliEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...sanitizeEnvironment(process.env), ...extra };
}

export interface CliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Runs a short CLI command to completion. */
export function runCli(binary: string, args: readonly string[], timeoutMs: number): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    execFile(binary, args, { env: cliEnvironment(), timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') {
        reject(new Error(`${path.basename(binary)} ${args.slice(0, 2).join(' ')} failed: ${stderr.trim() || error.message}`));
        return;
      }
      resolve({ exitCode: typeof error?.code === 'number' ? error.code : 0, stdout, stderr });
    });
  });
}

/** Names of running instances, from `instance list --json`. */
export async function listInstances(binary: string): Promise<string[]> {
  const result = await runCli(binary, ['instance', 'list', '--json'], 30_000);
  if (result.exitCode !== 0) throw new Error(`${path.basename(binary)} instance list failed: ${result.stderr.trim() || `exit ${result.exitCode}`}`);
  const parsed = JSON.parse(result.stdout || '{}') as { instances?: { instance?: unknown }[] | null };
  return (parsed.instances ?? []).map((entry) => entry.instance).filter((name): name is string => typeof name === 'string');
}
