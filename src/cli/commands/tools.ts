// `hermes-temporal tools`: the registered tools (or toolsets) and whether each is usable here.
import type { Command } from 'commander';
import { loadConfig } from '../../config/load';
import { createLogger } from '../../logging';
import { CheckCache, registry } from '../../registry/registry';
import { getToolsetInfo, getToolsetNames } from '../../registry/toolsets';
import { loadBuiltinTools } from '../../temporal/worker';

export function registerToolsCommand(program: Command): void {
  program
    .command('tools')
    .description('List the tools and whether each is available here')
    .option('--toolsets', 'list toolsets instead of tools')
    .option('--json', 'print JSON')
    .action(async (flags: { toolsets?: boolean; json?: boolean }) => {
      loadBuiltinTools(createLogger({ level: loadConfig().logging.level }));
      const checks = new CheckCache();
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
        const available = entry.checkFn ? await checks.passes(entry.checkFn) : true;
        rows.push({ name, toolset: entry.toolset, emoji: registry.getEmoji(name), available, description: entry.description.split('\n')[0] ?? '' });
      }
      if (flags.json) return console.log(JSON.stringify(rows, null, 2));
      for (const row of rows) {
        console.log(`${row.emoji} ${row.name.padEnd(14)} ${row.toolset.padEnd(10)} ${row.available ? 'available  ' : 'unavailable'}  ${row.description.slice(0, 80)}`);
      }
    });
}
