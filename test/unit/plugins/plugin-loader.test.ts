// Plugins: found in the user folder, the project folder (opt-in) and declaring npm packages;
// loaded only when enabled (disabled wins); a plugin that throws is logged, rolled back, skipped.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import path from 'node:path';
import { HookRegistry } from '../../../src/hooks/hook-registry';
import { loadConfig } from '../../../src/config/load';
import { loadPlugins } from '../../../src/plugins/plugin-loader';
import { pluginPlaces } from '../../../src/plugins/worker-extensions';
import { SessionWorkspaces } from '../../../src/environments/session-workspaces';
import { selectToolNames } from '../../../src/registry/definitions';
import { ToolRegistry } from '../../../src/registry/registry';
import { createToolContext } from '../../helpers/tool-context';
import { echoToolSource, writeFolderPlugin, writePackagePlugin } from '../../helpers/plugin-fixtures';
import { captureLogger } from '../registry/support';
import { tempDir } from '../../helpers/temp-dirs';

const hookTimeoutMs = 1000;

function places() {
  const root = tempDir('hermes-plugins-');
  return { userDir: path.join(root, 'user'), projectDir: path.join(root, 'project'), packageDirs: [path.join(root, 'node_modules')] };
}

async function load(where: ReturnType<typeof places>, enabled: string[], disabled: string[] = [], options: { project?: boolean; env?: NodeJS.ProcessEnv } = {}) {
  const registry = new ToolRegistry();
  const hooks = new HookRegistry();
  const { logger, warnings } = captureLogger();
  const reports = await loadPlugins(
    { userDir: where.userDir, ...(options.project ? { projectDir: where.projectDir } : {}), packageDirs: where.packageDirs },
    { enabled, disabled, hookTimeoutMs },
    { registry, hooks, logger, env: options.env ?? {} },
  );
  return { registry, hooks, reports, warnings };
}

describe('plugin discovery and enablement', () => {
  it('loads an enabled user plugin: its tool is registered, runs, and joins every session', async () => {
    const where = places();
    writeFolderPlugin(where.userDir, 'echo', `${echoToolSource('echo_text')}\ncontext.registerHook('pre_tool_call', () => undefined);`);
    const { registry, hooks, reports } = await load(where, ['echo']);
    expect(reports).toEqual([expect.objectContaining({ key: 'echo', source: 'user', status: 'loaded', tools: ['echo_text'], toolsets: ['echo'], hooks: ['pre_tool_call'] })]);
    expect(hooks.has('pre_tool_call')).toBe(true);
    expect(await registry.dispatch('echo_text', { text: 'hi' }, createToolContext())).toBe('{"echoed":"hi"}');
    // Enabling the plugin was the choice to use its tools: sessions get them whatever toolsets they enable...
    expect(selectToolNames(['file'], [], { registry })).toContain('echo_text');
    // ...unless they disable its toolset.
    expect(selectToolNames(['file'], ['echo'], { registry })).not.toContain('echo_text');
  });

  it('lists a plugin that is not enabled, and does not run it', async () => {
    const where = places();
    writeFolderPlugin(where.userDir, 'quiet', `throw new Error('must not run');`);
    const { reports, registry } = await load(where, []);
    expect(reports).toEqual([expect.objectContaining({ key: 'quiet', status: 'not_enabled', reason: expect.stringContaining('plugins.enabled') })]);
    expect(registry.getAllToolNames()).toEqual([]);
  });

  it('plugins.disabled wins over plugins.enabled', async () => {
    const where = places();
    writeFolderPlugin(where.userDir, 'both', echoToolSource('both_tool'));
    const { reports, registry } = await load(where, ['both'], ['both']);
    expect(reports[0]).toMatchObject({ status: 'disabled', reason: 'listed in plugins.disabled' });
    expect(registry.has('both_tool')).toBe(false);
  });

  it('a plugin that throws on load is logged, rolled back and skipped; the others still load', async () => {
    const where = places();
    writeFolderPlugin(where.userDir, 'broken', `${echoToolSource('half_tool')}\ncontext.registerHook('post_tool_call', () => undefined);\nthrow new Error('boom');`);
    writeFolderPlugin(where.userDir, 'good', echoToolSource('good_tool'));
    const { reports, registry, hooks, warnings } = await load(where, ['broken', 'good']);
    expect(reports.find((report) => report.key === 'broken')).toMatchObject({ status: 'failed', reason: expect.stringContaining('Error: boom') });
    expect(registry.has('half_tool')).toBe(false);
    expect(hooks.has('post_tool_call')).toBe(false);
    expect(registry.has('good_tool')).toBe(true);
    expect(warnings().some((warning) => warning.includes('broken') && warning.includes('boom'))).toBe(true);
  });

  it('a plugin may not replace a built-in tool', async () => {
    const where = places();
    writeFolderPlugin(where.userDir, 'thief', echoToolSource('read_file'));
    const registry = new ToolRegistry();
    registry.register({ name: 'read_file', toolset: 'file', description: 'built in', schema: z.object({}), handler: () => 'original' });
    const reports = await loadPlugins({ userDir: where.userDir, packageDirs: [] }, { enabled: ['thief'], disabled: [], hookTimeoutMs }, { registry, hooks: new HookRegistry() });
    expect(reports[0]).toMatchObject({ status: 'failed', reason: expect.stringContaining("may not replace the tool 'read_file'") });
    expect(await registry.dispatch('read_file', {}, createToolContext())).toBe('original');
  });

  it('reports a missing manifest, a bad manifest, a module without register(), and a missing variable', async () => {
    const where = places();
    writeFolderPlugin(where.userDir, 'needs-key', echoToolSource('keyed'), { requires_env: ['PLUGIN_TEST_KEY'] });
    writeFolderPlugin(where.userDir, 'bad-manifest', '', { name: '' });
    const noRegister = writeFolderPlugin(where.userDir, 'no-register', '');
    writeFileSync(path.join(noRegister, 'index.js'), 'exports.other = 1;');
    mkdirSync(path.join(where.userDir, 'no-manifest'), { recursive: true });
    const { reports } = await load(where, ['needs-key', 'bad-manifest', 'no-register', 'no-manifest']);
    const byKey = Object.fromEntries(reports.map((report) => [report.key, report]));
    expect(byKey['needs-key']).toMatchObject({ status: 'missing_env', reason: expect.stringContaining('PLUGIN_TEST_KEY') });
    expect(byKey['bad-manifest']).toMatchObject({ status: 'invalid' });
    expect(byKey['no-register']).toMatchObject({ status: 'failed', reason: expect.stringContaining('no register(context) function') });
    expect(byKey['no-manifest']).toMatchObject({ status: 'invalid', reason: expect.stringContaining('no plugin.yaml') });
    const withKey = await load(where, ['needs-key'], [], { env: { PLUGIN_TEST_KEY: 'x' } });
    expect(withKey.reports.find((report) => report.key === 'needs-key')?.status).toBe('loaded');
  });

  it('project plugins are looked for only when trusted', async () => {
    const where = places();
    writeFolderPlugin(where.projectDir, 'local', echoToolSource('project_tool'));
    expect((await load(where, ['local'])).reports).toEqual([]);
    const trusted = await load(where, ['local'], [], { project: true });
    expect(trusted.reports).toEqual([expect.objectContaining({ key: 'local', source: 'project', status: 'loaded' })]);
  });

  it('loads no user plugin whose code lies in the workspace (linked there, or its main), but one in a hermes home inside it', async () => {
    const workspace = tempDir('hermes-plugin-workspace-');
    const home = path.join(workspace, '.hermes-temporal');
    const userDir = path.join(home, 'plugins');
    const source = writeFolderPlugin(path.join(workspace, 'tools'), 'linked', `throw new Error('must not run');`);
    mkdirSync(userDir, { recursive: true });
    symlinkSync(source, path.join(userDir, 'linked'));
    writeFolderPlugin(path.join(workspace, 'tools'), 'outer', `throw new Error('must not run');`);
    writeFolderPlugin(userDir, 'pointing', '', { main: '../../../tools/outer/index.js' });
    writeFolderPlugin(userDir, 'own', echoToolSource('own_tool'));
    const registry = new ToolRegistry();
    const reports = await loadPlugins({ userDir, packageDirs: [], workspace, home }, { enabled: ['linked', 'pointing', 'own'], disabled: [], hookTimeoutMs }, { registry, hooks: new HookRegistry(), env: {} });
    const byKey = Object.fromEntries(reports.map((report) => [report.key, report]));
    for (const key of ['linked', 'pointing']) expect(byKey[key]).toMatchObject({ status: 'invalid', reason: expect.stringContaining("lies in the session's workspace") });
    expect(byKey.own).toMatchObject({ status: 'loaded', tools: ['own_tool'] });
  });

  it("loads no user plugin whose code lies in a running session's workspace (run --cwd), not only the worker's folder", async () => {
    const workerFolder = tempDir('hermes-plugin-worker-');
    const sessionWorkspace = tempDir('hermes-plugin-session-');
    const home = tempDir('hermes-plugin-home-');
    const userDir = path.join(home, 'plugins');
    mkdirSync(userDir, { recursive: true });
    symlinkSync(writeFolderPlugin(path.join(sessionWorkspace, 'tools'), 'linked', `throw new Error('must not run');`), path.join(userDir, 'linked'));
    const config = loadConfig({ env: { HERMES_TEMPORAL_HOME: home }, projectDir: workerFolder });
    const workspaces = new SessionWorkspaces([sessionWorkspace]);
    const reports = await loadPlugins(pluginPlaces({ ...config, session: { ...config.session, cwd: workerFolder } }, workspaces), { enabled: ['linked'], disabled: [], hookTimeoutMs }, { registry: new ToolRegistry(), hooks: new HookRegistry(), env: {} });
    expect(reports).toEqual([expect.objectContaining({ key: 'linked', status: 'invalid', reason: expect.stringContaining(`lies in the session's workspace ${sessionWorkspace}`) })]);
  });

  it('finds npm packages that declare themselves with a "hermes-temporal" field, scoped ones too', async () => {
    const where = places();
    const nodeModules = where.packageDirs[0] as string;
    writePackagePlugin(nodeModules, 'hermes-plugin-shout', echoToolSource('shout'));
    writePackagePlugin(nodeModules, '@acme/whisper', echoToolSource('whisper', 'acme'), './plugin.js');
    mkdirSync(path.join(nodeModules, 'unrelated'), { recursive: true });
    writeFileSync(path.join(nodeModules, 'unrelated', 'package.json'), '{"name":"unrelated"}');
    const { reports, registry } = await load(where, ['hermes-plugin-shout', '@acme/whisper']);
    expect(reports.map((report) => [report.key, report.source, report.status, report.version])).toEqual([
      ['@acme/whisper', 'package', 'loaded', '2.0.0'],
      ['hermes-plugin-shout', 'package', 'loaded', '2.0.0'],
    ]);
    expect(registry.getToolsetForTool('whisper')).toBe('acme');
  });

  it("on one name, the user's installed package wins over the project's, as the README orders them", async () => {
    const root = tempDir('hermes-plugins-');
    const config = loadConfig({ env: { HERMES_TEMPORAL_HOME: path.join(root, 'home') }, projectDir: path.join(root, 'project'), flags: { plugins: { project: true } } });
    const where = pluginPlaces(config);
    writePackagePlugin(path.join(root, 'project', 'node_modules'), 'hermes-plugin-x', echoToolSource('from_project'));
    writePackagePlugin(path.join(root, 'home', 'node_modules'), 'hermes-plugin-x', echoToolSource('from_home'));
    const registry = new ToolRegistry();
    await loadPlugins(where, { enabled: ['hermes-plugin-x'], disabled: [], hookTimeoutMs }, { registry, hooks: new HookRegistry(), env: {} });
    expect(registry.getToolsetForTool('from_home')).toBeDefined();
    expect(registry.getToolsetForTool('from_project')).toBeUndefined();
  });

  it('registerToolset adds a named bundle', async () => {
    const where = places();
    writeFolderPlugin(where.userDir, 'bundle', `${echoToolSource('one_tool')}\ncontext.registerToolset('bundle-extra', { description: 'Extra', tools: ['one_tool'] });`);
    const { registry, reports } = await load(where, ['bundle']);
    expect(reports[0]?.toolsets).toEqual(['bundle', 'bundle-extra']);
    expect(selectToolNames(['bundle-extra'], [], { registry })).toContain('one_tool');
  });
});
