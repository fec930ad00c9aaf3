// Loads the enabled plugins into a registry and a hook registry, once, when a worker starts (so
// workflow and activity names never change with them). Each plugin ends with a report: loaded
// (with what it added), or why not — disabled, not enabled, invalid, missing a variable, or failed.
// A plugin that throws is logged, rolled back and skipped; the others still load.
import path from 'node:path';
import type { HookRegistry } from '../hooks/hook-registry';
import { silentLogger, type Logger } from '../logging';
import type { ToolRegistry } from '../registry/registry';
import { TOOLSETS } from '../registry/toolset-table';
import { containingWorkspace } from '../environments/trusted-programs';
import { isWithin, realOrSelf } from '../environments/path-within';
import { createPluginContext, type PluginContext } from './plugin-context';
import { discoverPlugins, type DiscoveryPlaces, type PluginCandidate, type PluginSource } from './plugin-discovery';

export type PluginStatus = 'loaded' | 'disabled' | 'not_enabled' | 'invalid' | 'missing_env' | 'failed';

export interface PluginReport {
  key: string;
  name: string;
  source: PluginSource;
  path: string;
  version?: string;
  description?: string;
  status: PluginStatus;
  /** Why it did not load. */
  reason?: string;
  tools: string[];
  toolsets: string[];
  hooks: string[];
}

export interface PluginSettings {
  enabled: readonly string[];
  disabled: readonly string[];
  hookTimeoutMs: number;
}

const REGISTER_TIMEOUT_MS = 10_000;

export async function loadPlugins(
  places: DiscoveryPlaces,
  settings: PluginSettings,
  deps: { registry: ToolRegistry; hooks: HookRegistry; logger?: Logger; env?: NodeJS.ProcessEnv },
): Promise<PluginReport[]> {
  const logger = deps.logger ?? silentLogger;
  const env = deps.env ?? process.env;
  const reports: PluginReport[] = [];
  for (const candidate of discoverPlugins(places)) {
    const report = await loadOne(candidate);
    if (report.status === 'failed' || report.status === 'invalid') logger.warn({ plugin: report.key, reason: report.reason }, `Plugin ${report.key} skipped: ${report.reason}`);
    else if (report.status === 'loaded') logger.info({ plugin: report.key, tools: report.tools, hooks: report.hooks }, `Plugin ${report.key} loaded`);
    reports.push(report);
  }
  return reports;

  async function loadOne(candidate: PluginCandidate): Promise<PluginReport> {
    const { manifest } = candidate;
    const base: PluginReport = {
      key: candidate.key,
      name: manifest?.name ?? candidate.key,
      source: candidate.source,
      path: candidate.root,
      ...(manifest?.version ? { version: manifest.version } : {}),
      ...(manifest?.description ? { description: manifest.description } : {}),
      status: 'loaded',
      tools: [],
      toolsets: [],
      hooks: [],
    };
    const named = (list: readonly string[]) => list.includes(candidate.key) || (manifest !== undefined && list.includes(manifest.name));
    if (named(settings.disabled)) return { ...base, status: 'disabled', reason: 'listed in plugins.disabled' };
    if (!named(settings.enabled)) return { ...base, status: 'not_enabled', reason: `not in plugins.enabled (add '${candidate.key}' to load it)` };
    if (!manifest) return { ...base, status: 'invalid', reason: candidate.invalid ?? 'no manifest' };
    const missing = manifest.requires_env.filter((name) => !env[name]);
    if (missing.length) return { ...base, status: 'missing_env', reason: `needs the environment variable${missing.length > 1 ? 's' : ''} ${missing.join(', ')}` };

    const entry = path.resolve(candidate.root, manifest.main);
    // A plugin runs with the worker's rights: its code may not lie where sessions write (a user
    // plugin linked to a folder of the project), unless project plugins were trusted.
    const inWorkspace = candidate.source !== 'project' ? [candidate.root, entry].map((file) => ({ file, workspace: workspaceWriting(file, places) })).find((found) => found.workspace) : undefined;
    if (inWorkspace) {
      return { ...base, status: 'invalid', reason: `${inWorkspace.file} lies in the session's workspace ${inWorkspace.workspace}, which sandboxed commands and file tools can write; install the plugin outside it` };
    }
    const plugin = createPluginContext(candidate.key, { registry: deps.registry, hooks: deps.hooks, logger, hookTimeoutMs: settings.hookTimeoutMs });
    try {
      const register = registerFunctionOf(requirePlugin(entry));
      await withTimeout(Promise.resolve(register(plugin.context)), REGISTER_TIMEOUT_MS);
    } catch (error) {
      plugin.rollback();
      return { ...base, status: 'failed', reason: `${entry}: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}` };
    }
    // The plugin's own toolsets join every session (enabling the plugin chose them); built-in ones keep their meaning.
    const { registrations } = plugin;
    for (const toolset of registrations.toolsets) if (!(toolset in TOOLSETS)) deps.registry.includeByDefault(toolset);
    return { ...base, tools: registrations.tools, toolsets: registrations.toolsets, hooks: registrations.hooks.map((hook) => hook.event) };
  }
}

/** The workspace of a session that holds `file` (or where its links lead), unless it lies in the hermes home. */
function workspaceWriting(file: string, places: DiscoveryPlaces): string | undefined {
  const workspace = containingWorkspace(file, [places.workspace, ...(places.sessionWorkspaces ?? [])]);
  if (!workspace || (places.home && isWithin(realOrSelf(file), realOrSelf(places.home)))) return undefined;
  return workspace;
}

function requirePlugin(entry: string): unknown {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(entry);
}

/** `register` as a named export, a default export's `register`, or a default-exported function. */
function registerFunctionOf(loaded: unknown): (context: PluginContext) => unknown {
  const module = loaded as { register?: unknown; default?: unknown } | undefined;
  const fallback = module?.default as { register?: unknown } | undefined;
  const candidate = module?.register ?? fallback?.register ?? (typeof module?.default === 'function' ? module.default : typeof loaded === 'function' ? loaded : undefined);
  if (typeof candidate !== 'function') throw new Error('the module exports no register(context) function');
  return candidate as (context: PluginContext) => unknown;
}

function withTimeout<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`register() did not finish within ${timeoutMs / 1000} s`)), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
