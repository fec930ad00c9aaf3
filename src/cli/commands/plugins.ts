// `hermes-temporal plugins`: every plugin found, where from, and whether it loaded (with the
// tools, toolsets and hooks it added) or why not; then the shell hooks of the config.
import type { Command } from 'commander';
import { loadConfig } from '../../config/load';
import { createDrivers } from '../../environments/drivers';
import { learnHostFolders } from '../../environments/factory';
import { workspacesServedFrom } from '../../environments/session-workspaces';
import { createSessionStore } from '../../store/create-session-store';
import { createLogger } from '../../logging';
import { loadWorkerExtensions, pluginPlaces } from '../../plugins/worker-extensions';
import { registry } from '../../registry/registry';
import { loadBuiltinTools } from '../../temporal/worker';

export function registerPluginsCommand(program: Command): void {
  program
    .command('plugins')
    .description('List the plugins found, where from, and whether each loaded (and why not)')
    .option('--json', 'print JSON')
    .action(async (flags: { json?: boolean }) => {
      const config = loadConfig();
      const logger = createLogger({ level: config.logging.level });
      loadBuiltinTools(logger);
      // Loaded exactly as a worker loads them, so what is listed is what a worker would run: one
      // lying in the workspace of an open session is refused there too.
      const store = createSessionStore(config);
      const workspaces = await workspacesServedFrom(config.session.cwd, store).finally(() => store.close());
      learnHostFolders(createDrivers(config), workspaces);
      const extensions = await loadWorkerExtensions(config, registry, logger, process.env, workspaces);
      const shellHooks = config.hooks.map((hook) => ({ event: hook.event, command: hook.command, ...(hook.matcher ? { matcher: hook.matcher } : {}), timeout_seconds: hook.timeout_seconds }));
      if (flags.json) return console.log(JSON.stringify({ safeMode: extensions.safeMode, plugins: extensions.plugins, shellHooks }, null, 2));
      const places = pluginPlaces(config);
      console.log(`plugin folders: ${[places.userDir, places.projectDir ?? '(project plugins off: plugins.project)'].join(', ')}`);
      console.log(`npm packages with a "hermes-temporal" field in: ${places.packageDirs.join(', ')}`);
      if (extensions.safeMode) console.log('safe mode: plugins and shell hooks are not loaded');
      if (!extensions.plugins.length && !extensions.safeMode) console.log('no plugins found');
      for (const plugin of extensions.plugins) {
        const version = plugin.version ? ` ${plugin.version}` : '';
        console.log(`${plugin.key}${version}  [${plugin.source}]  ${plugin.status}  ${plugin.path}`);
        if (plugin.status === 'loaded') {
          console.log(`    tools: ${plugin.tools.join(', ') || '-'}; toolsets: ${plugin.toolsets.join(', ') || '-'}; hooks: ${plugin.hooks.join(', ') || '-'}`);
        } else if (plugin.reason) {
          console.log(`    ${plugin.reason}`);
        }
      }
      if (shellHooks.length) {
        console.log('shell hooks:');
        for (const hook of shellHooks) console.log(`  ${hook.event}${hook.matcher ? ` (${hook.matcher})` : ''}: ${hook.command}`);
      }
    });
}
