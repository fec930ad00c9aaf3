// The context a plugin's `register(context)` receives: it registers tools, toolsets and hooks,
// and remembers what it registered so a plugin that fails half-way is rolled back whole.
import { z } from 'zod';
import type { HookCallback } from '../hooks/hook-names';
import type { HookRegistry, RegisteredHook } from '../hooks/hook-registry';
import type { Logger } from '../logging';
import type { ToolRegistry } from '../registry/registry';
import type { RegisterOptions } from '../registry/tool-entry';
import type { ToolsetDefinition } from '../registry/toolset-table';

/** Which plugin owns which tool, per registry: a plugin may replace its own tools (reloads), never another's. */
const toolOwners = new WeakMap<ToolRegistry, Map<string, string>>();

export interface PluginContext {
  /** The plugin's key (folder or package name). */
  readonly name: string;
  /** The zod the registry uses: build argument schemas with it (another copy of zod would not be recognised). */
  readonly z: typeof z;
  readonly logger: Logger;
  /** Adds a tool; `toolset` defaults to the plugin's name. Replacing a tool the plugin does not own throws. */
  registerTool(options: Omit<RegisterOptions, 'toolset'> & { toolset?: string }): void;
  /** Adds a named bundle of tools (and other toolsets). */
  registerToolset(name: string, definition: { description?: string; tools?: string[]; includes?: string[] }): void;
  /** Adds a callback for a hook event (`pre_tool_call`, `post_tool_call`, ...). */
  registerHook(event: string, callback: HookCallback): void;
}

export class PluginToolOverrideError extends Error {
  override readonly name = 'PluginToolOverrideError';
}

export interface PluginRegistrations {
  tools: string[];
  toolsets: string[];
  hooks: RegisteredHook[];
}

export function createPluginContext(
  key: string,
  deps: { registry: ToolRegistry; hooks: HookRegistry; logger: Logger; hookTimeoutMs: number },
): { context: PluginContext; registrations: PluginRegistrations; rollback(): void } {
  const registrations: PluginRegistrations = { tools: [], toolsets: [], hooks: [] };
  const owners = toolOwners.get(deps.registry) ?? new Map<string, string>();
  toolOwners.set(deps.registry, owners);
  const context: PluginContext = {
    name: key,
    z,
    logger: deps.logger.child({ plugin: key }),
    registerTool(options) {
      const toolset = options.toolset ?? key;
      if (deps.registry.has(options.name) && owners.get(options.name) !== key) {
        throw new PluginToolOverrideError(`Plugin '${key}' may not replace the tool '${options.name}' (it belongs to ${owners.get(options.name) ? `plugin '${owners.get(options.name)}'` : 'the built-in tools'})`);
      }
      deps.registry.register({ ...options, toolset });
      owners.set(options.name, key);
      registrations.tools.push(options.name);
      if (!registrations.toolsets.includes(toolset)) registrations.toolsets.push(toolset);
    },
    registerToolset(name, definition) {
      const full: ToolsetDefinition = { description: definition.description ?? `Toolset of plugin '${key}'`, tools: definition.tools ?? [], includes: definition.includes ?? [] };
      deps.registry.createCustomToolset(name, full);
      if (!registrations.toolsets.includes(name)) registrations.toolsets.push(name);
    },
    registerHook(event, callback) {
      if (typeof callback !== 'function') throw new TypeError(`registerHook('${event}') needs a function`);
      registrations.hooks.push(deps.hooks.register({ event, source: `plugin:${key}`, callback, timeoutMs: deps.hookTimeoutMs }));
    },
  };
  const rollback = () => {
    for (const tool of registrations.tools) {
      deps.registry.deregister(tool);
      owners.delete(tool);
    }
    for (const toolset of registrations.toolsets) deps.registry.removeCustomToolset(toolset);
    deps.hooks.remove(registrations.hooks);
  };
  return { context, registrations, rollback };
}
