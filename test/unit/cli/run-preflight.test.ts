// `run` refuses a typo before it starts anything: a --cwd that is no folder (the first file write
// would have made it) and a toolset nothing defines (the session would have had no tools).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../../src/config/load';
import { ToolRegistry } from '../../../src/registry/registry';
import { unknownToolsets } from '../../../src/cli/session-preflight';
import { CLI_ENTRY, requireBuild } from '../../helpers/cli';
import { tempDir } from '../../helpers/temp-dirs';

requireBuild();

function run(root: string, args: string[]) {
  const env = {
    PATH: process.env.PATH,
    HOME: root,
    HERMES_TEMPORAL_HOME: path.join(root, 'hermes'),
    OPENAI_BASE_URL: 'http://127.0.0.1:1/v1',
    // Were the check missing, the command would stop here instead, saying something else.
    TEMPORAL_ADDRESS: '127.0.0.1:1',
  };
  const result = spawnSync(process.execPath, [CLI_ENTRY, 'run', 'a task', ...args], { cwd: root, env, encoding: 'utf8', timeout: 20_000 });
  return { code: result.status, err: result.stderr };
}

test('a --cwd that is not an existing folder is refused, and not made', () => {
  const root = tempDir('hermes-preflight-');
  const missing = path.join(root, 'no-such-folder');
  const refused = run(root, ['--cwd', missing]);
  expect(refused.code).toBe(1);
  expect(refused.err).toContain(`working directory ${missing}`);
  expect(refused.err).toContain('is not an existing folder');
  expect(existsSync(missing)).toBe(false);

  writeFileSync(path.join(root, 'file.txt'), 'x');
  expect(run(root, ['--cwd', path.join(root, 'file.txt')]).err).toContain('is not an existing folder');
});

test('an unknown toolset is refused, naming it', () => {
  const root = tempDir('hermes-preflight-');
  mkdirSync(path.join(root, 'work'));
  const refused = run(root, ['--cwd', path.join(root, 'work'), '--toolsets', 'file,fiel']);
  expect(refused.code).toBe(1);
  expect(refused.err).toContain("Unknown toolset in session.toolsets (or --toolsets): 'fiel'");
});

test('built-in, legacy, all, MCP server and plugin toolsets are known; others are not', () => {
  const home = tempDir('hermes-preflight-home-');
  writeFileSync(path.join(home, 'config.yaml'), 'mcp_servers:\n  docs:\n    command: /bin/true\n');
  const config = loadConfig({
    env: { HERMES_TEMPORAL_HOME: home },
    projectDir: home,
    flags: { session: { toolsets: ['file', 'terminal_tools', 'all', 'docs', 'mcp-docs', 'guard', 'mcp-other', 'nosuch'] } },
  });
  const registry = new ToolRegistry();
  expect(unknownToolsets(config, registry)).toEqual(['guard', 'mcp-other', 'nosuch']);
  registry.createCustomToolset('guard', { tools: [], includes: [] });
  expect(unknownToolsets(config, registry)).toEqual(['mcp-other', 'nosuch']);
});
