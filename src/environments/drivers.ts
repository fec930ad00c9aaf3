// Every terminal backend this build knows, configured from the worker's configuration. A driver
// that cannot work here still registers: it says why (`unavailableReason`) instead of vanishing.
import path from 'node:path';
import { PROJECT_CONFIG_FILE, type LoadedConfig } from '../config/load';
import { DaytonaDriver } from './daytona/daytona-driver';
import { DockerDriver } from './docker/docker-driver';
import { LocalDriver } from './factory';
import { LocalSandbox } from './local-sandbox';
import { ModalDriver } from './modal/modal-driver';
import { PACKAGE_CONFIG_FILES } from './package-config-guard';
import { SingularityDriver } from './singularity/singularity-driver';
import { SshDriver } from './ssh/ssh-driver';
import type { Backend, EnvironmentDriver } from './terminal-environment';
import { VercelDriver } from './vercel/vercel-driver';

/** The local sandbox as configured; the runtime's own files (home, store, dev server data) hidden. */
export function localSandbox(config: LoadedConfig): LocalSandbox {
  const local = config.terminal.local;
  return new LocalSandbox({
    mode: local.sandbox,
    network: local.network,
    maxProcesses: local.max_processes,
    maxMemoryMb: local.max_memory_mb,
    maxFileSizeMb: local.max_file_size_mb,
    tmpSizeMb: local.tmp_size_mb,
    hiddenPaths: local.hidden_paths,
    readPaths: local.read_paths,
    runtimePaths: [
      config.home,
      config.store.path,
      ...(config.temporal.dev_server.db_file ? [config.temporal.dev_server.db_file] : []),
      // The project's config file may hold keys too: the worker's own, and any session's.
      path.join(config.session.cwd, PROJECT_CONFIG_FILE),
    ],
    // The package managers' configs may hold registry tokens; hidden, they also stay unwritable.
    workspaceHiddenNames: [PROJECT_CONFIG_FILE, ...PACKAGE_CONFIG_FILES],
    ...(local.bwrap_path ? { bwrapPath: local.bwrap_path } : {}),
  });
}

/** `overrides` replace the configured driver of a backend (tests inject local stand-ins this way). */
export function createDrivers(config: LoadedConfig, overrides: Partial<Record<Backend, EnvironmentDriver>> = {}): EnvironmentDriver[] {
  const killGraceMs = config.terminal.kill_grace_seconds * 1000;
  const drivers: EnvironmentDriver[] = [
    new LocalDriver({ envPassthrough: config.terminal.env_passthrough, killGraceMs, sandbox: localSandbox(config), backgroundLogTotalMb: config.terminal.local.background_log_total_mb }),
    new DockerDriver(config.terminal.docker, { envPassthrough: config.terminal.env_passthrough, killGraceMs }),
    new SshDriver(config.terminal.ssh, { envPassthrough: config.terminal.env_passthrough, killGraceMs }),
    new SingularityDriver(config.terminal.singularity, { killGraceMs }),
    new ModalDriver(config.terminal.modal, { killGraceMs }),
    new DaytonaDriver(config.terminal.daytona, { killGraceMs }),
    new VercelDriver(config.terminal.vercel_sandbox, { killGraceMs }),
  ];
  const configured = drivers.map((driver) => overrides[driver.backend] ?? driver);
  const added = Object.values(overrides).filter((driver) => !drivers.some((existing) => existing.backend === driver.backend));
  return [...configured, ...added];
}
