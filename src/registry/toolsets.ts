// Toolset resolution: static bundles merged with what the registry holds (plugins, MCP servers),
// composite toolsets expanded recursively and cycle-safe.
import { registry as defaultRegistry, type ToolRegistry } from './registry';
import { CORE_TOOLS, LEGACY_TOOLSETS, TOOLSETS, type ToolsetDefinition } from './toolset-table';

export interface ResolveOptions {
  registry?: ToolRegistry;
  /** Merge tools registered under the toolset's name (default true). */
  includeRegistry?: boolean;
}

const ALL_NAMES = new Set(['all', '*']);

function staticToolset(name: string, registry: ToolRegistry): ToolsetDefinition | undefined {
  if (Object.prototype.hasOwnProperty.call(TOOLSETS, name)) return TOOLSETS[name];
  return registry.getCustomToolset(name);
}

/** A toolset's definition, merged with registry tools; undefined when no such toolset exists. */
export function getToolset(name: string, options: ResolveOptions = {}): ToolsetDefinition | undefined {
  const registry = options.registry ?? defaultRegistry;
  const includeRegistry = options.includeRegistry ?? true;
  const known = staticToolset(name, registry);
  if (known) {
    if (!includeRegistry) return { ...known, tools: [...known.tools], includes: [...known.includes] };
    const tools = [...new Set([...known.tools, ...registry.getToolNamesForToolset(name)])].sort();
    return { ...known, tools, includes: [...known.includes] };
  }
  if (!includeRegistry) return undefined;
  const aliasTarget = registry.getToolsetAlias(name);
  if (aliasTarget) {
    return { description: `MCP server '${name}' tools`, tools: registry.getToolNamesForToolset(aliasTarget), includes: [] };
  }
  const registered = registry.getToolNamesForToolset(name);
  if (registered.length) {
    const alias = [...registry.getAliases()].find(([, target]) => target === name)?.[0];
    const description = alias ? `MCP server '${alias}' tools` : `Plugin toolset: ${name}`;
    return { description, tools: registered, includes: [] };
  }
  return undefined;
}

/** Every toolset name: static, custom and registry-only ones (sorted). */
export function getToolsetNames(options: ResolveOptions = {}): string[] {
  const registry = options.registry ?? defaultRegistry;
  const names = new Set([...Object.keys(TOOLSETS), ...registry.getCustomToolsetNames()]);
  if (options.includeRegistry ?? true) {
    for (const toolset of registry.getRegisteredToolsetNames()) names.add(toolset);
    for (const alias of registry.getAliases().keys()) names.add(alias);
  }
  return [...names].sort();
}

/** Tool names in a toolset, composite toolsets expanded; cycles and diamonds resolve once. */
export function resolveToolset(name: string, options: ResolveOptions = {}, visited = new Set<string>()): string[] {
  if (ALL_NAMES.has(name)) {
    const all = new Set<string>();
    for (const toolset of getToolsetNames(options)) {
      for (const tool of resolveToolset(toolset, options, new Set(visited))) all.add(tool);
    }
    return [...all].sort();
  }
  if (visited.has(name)) return [];
  visited.add(name);
  const toolset = getToolset(name, options);
  if (!toolset) return [];
  const tools = new Set(toolset.tools);
  for (const included of toolset.includes) {
    for (const tool of resolveToolset(included, options, visited)) tools.add(tool);
  }
  return [...tools].sort();
}

export function resolveMultipleToolsets(names: readonly string[], options: ResolveOptions = {}): string[] {
  const tools = new Set<string>();
  for (const name of names) for (const tool of resolveToolset(name, options)) tools.add(tool);
  return [...tools].sort();
}

export function validateToolset(name: string, options: ResolveOptions = {}): boolean {
  if (ALL_NAMES.has(name)) return true;
  return getToolset(name, options) !== undefined;
}

export function isLegacyToolset(name: string): boolean {
  return Object.prototype.hasOwnProperty.call(LEGACY_TOOLSETS, name);
}

export function legacyToolsetTools(name: string): readonly string[] {
  return isLegacyToolset(name) ? (LEGACY_TOOLSETS[name] ?? []) : [];
}

export interface ToolsetInfo {
  name: string;
  description: string;
  directTools: string[];
  includes: string[];
  resolvedTools: string[];
  toolCount: number;
  isComposite: boolean;
}

export function getToolsetInfo(name: string, options: ResolveOptions = {}): ToolsetInfo | undefined {
  const toolset = getToolset(name, options);
  if (!toolset) return undefined;
  const resolvedTools = resolveToolset(name, options);
  return {
    name,
    description: toolset.description,
    directTools: [...toolset.tools],
    includes: [...toolset.includes],
    resolvedTools,
    toolCount: resolvedTools.length,
    isComposite: toolset.includes.length > 0,
  };
}

/** A bundle's tools outside the core set: what disabling a platform preset or posture removes. */
export function bundleNonCoreTools(name: string, options: ResolveOptions = {}): Set<string> {
  const core = new Set(CORE_TOOLS);
  const toolset = getToolset(name, options);
  if (!toolset) return new Set(resolveToolset(name, options).filter((tool) => !core.has(tool)));
  const delta = new Set(toolset.tools.filter((tool) => !core.has(tool)));
  for (const included of toolset.includes) {
    for (const tool of getToolset(included, options)?.tools ?? []) if (!core.has(tool)) delta.add(tool);
  }
  return delta;
}

/** True for platform presets and posture toolsets, whose disabling keeps core tools. */
export function isPresetOrPosture(name: string, options: ResolveOptions = {}): boolean {
  return name.startsWith('hermes-') || getToolset(name, options)?.posture === true;
}
