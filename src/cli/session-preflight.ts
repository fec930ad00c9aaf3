// What `run` checks before it starts a session, so a typo fails at once, naming itself, rather
// than giving a session that has no tools or works in a folder nobody meant.
import { statSync } from 'node:fs';
import type { LoadedConfig } from '../config/load';
import { mcpToolsetName } from '../mcp/naming';
import { registry as defaultRegistry, type ToolRegistry } from '../registry/registry';
import { isLegacyToolset, validateToolset } from '../registry/toolsets';

/** Toolsets of `session.toolsets` that nothing defines: built-ins, legacy names, MCP servers, loaded plugins. */
export function unknownToolsets(config: LoadedConfig, registry: ToolRegistry = defaultRegistry): string[] {
  const servers = Object.keys(config.mcp_servers);
  const isServer = (name: string) => servers.some((server) => name === server || name === mcpToolsetName(server));
  return config.session.toolsets.filter((name) => !validateToolset(name, { registry }) && !isLegacyToolset(name) && !isServer(name));
}

/** Throws when a toolset is unknown (call once the plugins that could define it are loaded). */
export function refuseUnknownToolsets(config: LoadedConfig, registry: ToolRegistry = defaultRegistry): void {
  const unknown = unknownToolsets(config, registry);
  if (!unknown.length) return;
  throw new Error(
    `Unknown toolset${unknown.length > 1 ? 's' : ''} in session.toolsets (or --toolsets): ${unknown.map((name) => `'${name}'`).join(', ')}; ` +
      '`hermes-temporal tools --toolsets` lists the toolsets',
  );
}

/**
 * A local session works in a folder of this machine: one that is missing (a typo) would be made
 * by the first file write, so it is refused instead.
 */
export function refuseMissingWorkspace(config: LoadedConfig): void {
  if (config.terminal.backend !== 'local') return;
  const folder = config.session.cwd;
  let isFolder = false;
  try {
    isFolder = statSync(folder).isDirectory();
  } catch {
    isFolder = false;
  }
  if (!isFolder) throw new Error(`The session's working directory ${folder} (--cwd or session.cwd) is not an existing folder`);
}
