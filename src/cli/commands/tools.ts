// `hermes-temporal tools`: the registered tools (or toolsets) and whether each is usable here.
import type { Command } from 'commander';
import { loadConfig } from '../../config/load';
import { createConfiguredLogger } from '../../logging';
import { CheckCache, registry } from '../../registry/registry';
import { getToolsetInfo, getToolsetNames } from '../../registry/toolsets';
import { createDrivers } from '../../environments/drivers';
import { EnvironmentFactory } from '../../environments/factory';
import { OPTIONAL_SDKS, optionalSdkLine, optionalSdkStatus } from '../../environments/optional-sdk';
import { loadBuiltinTools } from '../../temporal/worker';
import { loadWorkerExtensions } from '../../plugins/worker-extensions';
import { listMcpServers, printMcpServers } from './mcp-servers-listing';

export function registerToolsCommand(program: Command): void {
  program
    .command('tools')
    .description('List the tools and whether each is available here')
    .option('--toolsets', 'list toolsets instead of tools')
    .option('--mcp', 'connect to the configured MCP servers and list their tools')
    .option('--json', 'print JSON')
    .action(async (flags: { toolsets?: boolean; mcp?: boolean; json?: boolean }) => {
      const config = loadConfig();
      if (flags.mcp) {
        const reports = await listMcpServers(config, createConfiguredLogger(config));
        return flags.json ? console.log(JSON.stringify(reports, null, 2)) : printMcpServers(reports);
      }
      const logger = createConfiguredLogger(config);
      loadBuiltinTools(logger);
      // Plugin tools are listed too, each with the plugin it came from.
      const { plugins } = await loadWorkerExtensions(config, registry, logger);
      const pluginOf = new Map(plugins.flatMap((plugin) => plugin.tools.map((tool) => [tool, plugin.key] as const)));
      const failed = plugins.filter((plugin) => plugin.status === 'failed' || plugin.status === 'invalid' || plugin.status === 'missing_env');
      const environments = new EnvironmentFactory(createDrivers(config));
      const checks = new CheckCache(undefined, { terminalUnavailableReason: () => environments.unavailableReason(config.terminal.backend), backend: config.terminal.backend });
      const sandbox = environments.localSandboxState();
      if (flags.toolsets) {
        const rows = [];
        for (const name of getToolsetNames()) {
          const info = getToolsetInfo(name);
          if (!info) continue;
          const registered = info.resolvedTools.filter((tool) => registry.has(tool));
          rows.push({ name, description: info.description, tools: registered, available: await registry.isToolsetAvailable(name, checks) });
        }
        if (flags.json) return console.log(JSON.stringify(rows, null, 2));
        for (const row of rows.filter((candidate) => candidate.tools.length)) {
          console.log(`${row.name.padEnd(22)} ${row.tools.length.toString().padStart(3)} tools  ${row.description}`);
        }
        return;
      }
      const rows = [];
      for (const name of registry.getAllToolNames()) {
        const entry = registry.get(name);
        if (!entry) continue;
        const reason = entry.checkFn ? await checks.unavailableReason(entry.checkFn) : undefined;
        rows.push({
          name,
          toolset: entry.toolset,
          emoji: registry.getEmoji(name),
          source: pluginOf.has(name) ? `plugin:${pluginOf.get(name)}` : 'builtin',
          available: reason === undefined,
          ...(reason ? { reason } : {}),
          description: entry.description.split('\n')[0] ?? '',
        });
      }
      if (flags.json) return console.log(JSON.stringify(rows, null, 2));
      // The local sandbox's state is part of what "available" means for the terminal.
      if (sandbox) console.log(`local ${sandbox.summary}`);
      // Columns as wide as their longest entry, so plugin and MCP names keep the table aligned.
      const nameWidth = Math.max(...rows.map((row) => row.name.length));
      const toolsetWidth = Math.max(...rows.map((row) => row.toolset.length));
      for (const row of rows) {
        const state = row.available ? 'available  ' : 'unavailable';
        const from = row.source === 'builtin' ? '' : ` [${row.source}]`;
        console.log(`${row.emoji} ${row.name.padEnd(nameWidth)} ${row.toolset.padEnd(toolsetWidth)} ${state}  ${row.reason ?? row.description.slice(0, 80)}${from}`);
      }
      // A plugin that did not load says why, so a missing tool is explained here too.
      for (const plugin of failed) console.log(`plugin ${plugin.key} did not load (${plugin.status}): ${plugin.reason ?? ''}`);
      // The cloud backends' SDKs are optional installs: say which are there and how to add the others.
      console.log(`\ncloud backend packages (terminal.backend is ${config.terminal.backend}):`);
      for (const sdk of OPTIONAL_SDKS) console.log(`  ${optionalSdkLine(optionalSdkStatus(sdk))}`);
    });
}
