// What a worker adds to its built-in tools when it starts: the enabled plugins (tools, toolsets,
// hooks) and the shell hooks of the config. Where plugins are looked for follows the config.
import path from 'node:path';
import type { LoadedConfig } from '../config/load';
import { HookRegistry } from '../hooks/hook-registry';
import { registerShellHooks } from '../hooks/shell-hooks';
import type { SessionWorkspaces } from '../environments/session-workspaces';
import { silentLogger, type Logger } from '../logging';
import type { ToolRegistry } from '../registry/registry';
import type { DiscoveryPlaces } from './plugin-discovery';
import { loadPlugins, type PluginReport } from './plugin-loader';

/** Set (to anything but 0/false) to start with no plugins and no shell hooks: for a broken plugin. */
export const SAFE_MODE_VARIABLE = 'HERMES_TEMPORAL_SAFE_MODE';

export interface WorkerExtensions {
  hooks: HookRegistry;
  plugins: PluginReport[];
  /** Set when safe mode kept plugins and shell hooks from loading. */
  safeMode: boolean;
}

export function pluginPlaces(config: LoadedConfig, workspaces?: SessionWorkspaces): DiscoveryPlaces {
  const project = config.plugins.project;
  return {
    userDir: path.join(config.home, 'plugins'),
    ...(project ? { projectDir: path.join(config.session.cwd, '.hermes-temporal', 'plugins') } : {}),
    // Later places win on a name: the user's installed packages over the project's.
    packageDirs: [...(project ? [path.join(config.session.cwd, 'node_modules')] : []), path.join(config.home, 'node_modules')],
    workspace: config.session.cwd,
    ...(workspaces ? { sessionWorkspaces: workspaces.list() } : {}),
    home: config.home,
  };
}

export async function loadWorkerExtensions(
  config: LoadedConfig,
  registry: ToolRegistry,
  logger: Logger = silentLogger,
  env: NodeJS.ProcessEnv = process.env,
  /** The workspaces of the sessions the worker serves (running ones when it starts, then each it serves). */
  workspaces?: SessionWorkspaces,
): Promise<WorkerExtensions> {
  const hooks = new HookRegistry(logger);
  const safe = env[SAFE_MODE_VARIABLE];
  if (safe && !/^(0|false|no)$/i.test(safe)) {
    logger.warn(`${SAFE_MODE_VARIABLE} is set: no plugins and no shell hooks are loaded`);
    return { hooks, plugins: [], safeMode: true };
  }
  const plugins = await loadPlugins(
    pluginPlaces(config, workspaces),
    { enabled: config.plugins.enabled, disabled: config.plugins.disabled, hookTimeoutMs: config.plugins.hook_timeout_seconds * 1000 },
    { registry, hooks, logger, env },
  );
  // Shell hooks come after plugin hooks, as in the original.
  registerShellHooks(hooks, config.hooks, config.session.cwd, workspaces);
  return { hooks, plugins, safeMode: false };
}
