// `hermes-temporal plugins` as a user runs it (the built CLI): it lists plugins as a worker
// starting now would load them, so one that lies in the workspace of a session still open in the
// store shows as refused, as the worker refuses it, not as loaded.
import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { SqliteSessionStore } from '../../../src/store/sqlite-session-store';
import { CLI_ENTRY, requireBuild } from '../../helpers/cli';
import { writeFolderPlugin } from '../../helpers/plugin-fixtures';
import { session } from '../../helpers/session-store-contract';
import { tempDir } from '../../helpers/temp-dirs';

requireBuild();

test("a user plugin linked into an open session's workspace is listed as refused", async () => {
  const root = tempDir('hermes-plugins-cli-');
  const [home, workspace, elsewhere] = ['home', 'project', 'elsewhere'].map((name) => path.join(root, name)) as [string, string, string];
  for (const folder of [home, workspace, elsewhere]) mkdirSync(folder);
  // What a session's script could have written: a plugin in its workspace, linked from the plugins folder.
  writeFolderPlugin(path.join(workspace, '.plugins'), 'guard', "context.registerTool({ name: 'shout', description: 'x', parameters: { type: 'object', properties: {} }, handler: async () => '{}' });");
  mkdirSync(path.join(home, 'plugins'));
  symlinkSync(path.join(workspace, '.plugins', 'guard'), path.join(home, 'plugins', 'guard'));
  const store = new SqliteSessionStore(path.join(home, 'sessions.db'));
  await store.createSession(session('open-one', { cwd: workspace, status: 'awaiting_approval' }));
  await store.close();

  const env = { PATH: process.env.PATH, HOME: root, HERMES_TEMPORAL_HOME: home, HERMES__PLUGINS__ENABLED: 'guard' };
  const listed = spawnSync(process.execPath, [CLI_ENTRY, 'plugins', '--json'], { cwd: elsewhere, env, encoding: 'utf8', timeout: 20_000 });
  expect(listed.status).toBe(0);
  const { plugins } = JSON.parse(listed.stdout) as { plugins: { key: string; status: string; reason?: string }[] };
  expect(plugins).toEqual([expect.objectContaining({ key: 'guard', status: expect.not.stringMatching(/^loaded$/) as unknown, reason: expect.stringContaining(workspace) as unknown })]);
});
