// What the model sees: resolve toolsets to tool names, filter by availability, then patch the
// schemas that mention other tools so they only mention tools that survived.
import { silentLogger, type Logger } from '../logging';
import { registry as defaultRegistry, type ToolRegistry } from './registry';
import type { SchemaContext, ToolDefinition } from './tool-entry';
import {
  bundleNonCoreTools,
  isLegacyToolset,
  isPresetOrPosture,
  legacyToolsetTools,
  resolveToolset,
  validateToolset,
  getToolsetNames,
} from './toolsets';

export interface DefinitionOptions {
  registry?: ToolRegistry;
  logger?: Logger;
  /** What the session tells schema patching (its delegation limits). */
  schemaContext?: SchemaContext;
}

/** Tool names selected by enabled/disabled toolsets, before availability checks. */
export function selectToolNames(
  enabledToolsets?: readonly string[],
  disabledToolsets?: readonly string[],
  options: DefinitionOptions = {},
): Set<string> {
  const registry = options.registry ?? defaultRegistry;
  const logger = options.logger ?? silentLogger;
  const resolveOptions = { registry };
  const selected = new Set<string>();
  const add = (tools: Iterable<string>) => {
    for (const tool of tools) selected.add(tool);
  };

  if (enabledToolsets) {
    for (const name of enabledToolsets) {
      if (validateToolset(name, resolveOptions)) add(resolveToolset(name, resolveOptions));
      else if (isLegacyToolset(name)) add(legacyToolsetTools(name));
      else logger.warn(`Unknown toolset: ${name}`);
    }
    for (const name of registry.getDefaultToolsets()) add(resolveToolset(name, resolveOptions));
  } else {
    for (const name of getToolsetNames(resolveOptions)) add(resolveToolset(name, resolveOptions));
  }

  for (const name of disabledToolsets ?? []) {
    let removed: Iterable<string>;
    if (validateToolset(name, resolveOptions)) {
      removed = isPresetOrPosture(name, resolveOptions)
        ? bundleNonCoreTools(name, resolveOptions)
        : resolveToolset(name, resolveOptions);
    } else if (isLegacyToolset(name)) {
      removed = legacyToolsetTools(name);
    } else {
      logger.warn(`Unknown toolset: ${name}`);
      continue;
    }
    for (const tool of removed) selected.delete(tool);
  }
  return selected;
}

/**
 * The five steps: take the enabled toolsets' tools (or all toolsets), subtract disabled ones,
 * keep tools whose check passes, then rewrite schemas that mention other tools.
 */
export async function getToolDefinitions(
  enabledToolsets?: readonly string[],
  disabledToolsets?: readonly string[],
  options: DefinitionOptions = {},
): Promise<ToolDefinition[]> {
  const registry = options.registry ?? defaultRegistry;
  const names = selectToolNames(enabledToolsets, disabledToolsets, options);
  return definitionsForTools(names, { registry });
}

/** Definitions of exactly these tools (those that pass their checks), with schemas patched. */
export async function definitionsForTools(names: Iterable<string>, options: DefinitionOptions = {}): Promise<ToolDefinition[]> {
  const registry = options.registry ?? defaultRegistry;
  const filtered = await registry.getDefinitions(names);
  return patchDefinitions(filtered, registry, options.schemaContext ?? {});
}

function patchDefinitions(definitions: ToolDefinition[], registry: ToolRegistry, context: SchemaContext): ToolDefinition[] {
  const available = new Set(definitions.map((definition) => definition.function.name));
  return definitions.map((definition) => {
    const patch = registry.get(definition.function.name)?.patchSchema;
    return patch ? { type: 'function', function: patch(definition.function, available, context) } : definition;
  });
}
