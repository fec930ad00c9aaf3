// Configuration as a user sees it: defaults, the files and variables that override them, and
// error messages that say which key is wrong, why, and where the bad value came from.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { configFromFlags } from '../../../src/cli/config-flags';
import { ConfigError, loadConfig, PROJECT_CONFIG_FILE, type LoadOptions } from '../../../src/config/load';
import { readProjectFile, trustProjectFile, trustRecordFile } from '../../../src/config/project-trust';
import type { PartialConfig } from '../../../src/config/schema';

let root: string;
let home: string;
let projectDir: string;

beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'hermes-config-'));
  home = path.join(root, 'home');
  projectDir = path.join(root, 'project');
  mkdirSync(home);
  mkdirSync(projectDir);
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

const homeConfig = () => path.join(home, 'config.yaml');
const projectConfig = () => path.join(projectDir, PROJECT_CONFIG_FILE);

/** A project file its user read and trusted (`hermes-temporal trust`). */
function writeTrustedProjectConfig(content: string): void {
  writeFileSync(projectConfig(), content);
  trustProjectFile(home, readProjectFile(projectConfig())!);
}

function load(options: { env?: Record<string, string>; flags?: PartialConfig } = {}) {
  const loadOptions: LoadOptions = { env: { HERMES_TEMPORAL_HOME: home, ...options.env }, projectDir, flags: options.flags };
  return loadConfig(loadOptions);
}

/** The ConfigError message `run` throws; fails the test if it does not throw one. */
function configErrorOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  throw new Error('expected a ConfigError, but the configuration loaded');
}

describe('defaults', () => {
  it('gives every section its defaults when there is no config file and no variable', () => {
    const config = load();
    expect(config.home).toBe(home);
    expect(config.model).toEqual({ name: 'gpt-4o-mini', timeout_seconds: 600, max_attempts: 8, retry_initial_interval_ms: 1000, retry_unreachable: false });
    expect(config.temporal).toEqual({
      namespace: 'default',
      task_queue: 'hermes-temporal',
      dev_server: { ip: '127.0.0.1', port: 7233, ui_port: 8233, db_file: path.join(home, 'temporal.db') },
    });
    expect(config.worker).toEqual({ max_concurrent_activities: 100, max_concurrent_scripts: 32, max_concurrent_workflow_tasks: 40, shutdown_grace_seconds: 30, connect_timeout_seconds: 600, max_cached_workflows: 200, max_eager_activities_per_task: 16 });
    expect(config.session).toEqual({ max_turns: 50, toolsets: ['hermes-cli'], disabled_toolsets: [], cwd: projectDir, parallel_terminal: 'read_only', max_parallel_tool_calls: 64, max_parallel_watches: 256 });
    expect(config.terminal).toMatchObject({
      backend: 'local',
      timeout_seconds: 180,
      max_foreground_timeout_seconds: 600,
      max_output_chars: 50_000,
      env_passthrough: [],
      kill_grace_seconds: 2,
      docker: { network: false, image: 'debian:bookworm-slim', workdir: '/workspace' },
      ssh: { port: 22, trust_unknown_host: false, max_channels: 8 },
    });
    expect(config.approvals).toMatchObject({ mode: 'manual', timeout_seconds: 1800, unattended_policy: 'deny', deny: [] });
    expect(config.command_allowlist).toEqual([]);
    expect(config.memory).toEqual({ memory_enabled: true, user_profile_enabled: true, memory_char_limit: 2200, user_char_limit: 1375 });
    expect(config.store).toMatchObject({ path: path.join(home, 'sessions.db') });
    expect(config.logging).toEqual({ level: 'warn', format: 'pretty' });
  });

  it('treats an empty config file as no settings', () => {
    writeFileSync(homeConfig(), '');
    writeTrustedProjectConfig('# nothing yet\n');
    expect(load().session.max_turns).toBe(50);
  });
});

describe('precedence: defaults < home config < project config < environment < flags', () => {
  it('lets each later source override the earlier ones, key by key', () => {
    writeFileSync(homeConfig(), 'model:\n  name: from-home\nsession:\n  max_turns: 10\nworker:\n  shutdown_grace_seconds: 5\n');
    writeTrustedProjectConfig('model:\n  name: from-project\nsession:\n  max_turns: 20\n');
    const config = load({ env: { HERMES_MAX_TURNS: '30' } });
    expect(config.model.name).toBe('from-project');
    expect(config.session.max_turns).toBe(30);
    expect(config.worker.shutdown_grace_seconds).toBe(5);

    const flagged = load({ env: { HERMES_MAX_TURNS: '30', HERMES_MODEL: 'from-env' }, flags: { session: { max_turns: 40 } } });
    expect(flagged.model.name).toBe('from-env');
    expect(flagged.session.max_turns).toBe(40);
  });

  it('reads the home config from HERMES_TEMPORAL_HOME, not from the real home directory', () => {
    writeFileSync(homeConfig(), 'temporal:\n  namespace: team-ns\n');
    expect(load().temporal.namespace).toBe('team-ns');
    const otherHome = path.join(root, 'other-home');
    mkdirSync(otherHome);
    expect(loadConfig({ env: { HERMES_TEMPORAL_HOME: otherHome }, projectDir }).temporal.namespace).toBe('default');
  });

  it('merges sections deeply: overriding one key keeps its siblings from earlier sources', () => {
    writeFileSync(homeConfig(), 'temporal:\n  namespace: home-ns\n  dev_server:\n    port: 7300\n    ui_port: 8300\n');
    writeTrustedProjectConfig('temporal:\n  dev_server:\n    port: 7400\n');
    const config = load({ env: { HERMES_TASK_QUEUE: 'env-queue' } });
    expect(config.temporal.namespace).toBe('home-ns');
    expect(config.temporal.task_queue).toBe('env-queue');
    expect(config.temporal.dev_server.port).toBe(7400);
    expect(config.temporal.dev_server.ui_port).toBe(8300);
  });

  it('replaces lists instead of merging them', () => {
    writeTrustedProjectConfig('session:\n  toolsets: [web, files]\n');
    expect(load({ env: { HERMES_TOOLSETS: 'terminal' } }).session.toolsets).toEqual(['terminal']);
  });

  it('maps the well-known environment variables onto their keys', () => {
    const config = load({
      env: {
        OPENAI_API_KEY: 'sk-test',
        OPENAI_BASE_URL: 'http://localhost:1234/v1',
        HERMES_MODEL: 'local-model',
        TEMPORAL_ADDRESS: 'temporal.internal:7233',
        HERMES_TASK_QUEUE: 'agents',
        HERMES_MAX_TURNS: '7',
        HERMES_TOOLSETS: 'web, terminal,,files ',
        DELEGATION_MAX_CONCURRENT_CHILDREN: '8',
        DELEGATION_CHILD_TIMEOUT_SECONDS: '120',
      },
    });
    expect(config.delegation).toMatchObject({ max_concurrent_children: 8, child_timeout_seconds: 120 });
    expect(config.model).toMatchObject({ api_key: 'sk-test', base_url: 'http://localhost:1234/v1', name: 'local-model' });
    expect(config.temporal).toMatchObject({ address: 'temporal.internal:7233', task_queue: 'agents' });
    expect(config.session.max_turns).toBe(7);
    expect(config.session.toolsets).toEqual(['web', 'terminal', 'files']);
  });

  it('ignores environment variables that are set but empty', () => {
    writeTrustedProjectConfig('model:\n  name: from-project\n');
    expect(load({ env: { HERMES_MODEL: '' } }).model.name).toBe('from-project');
  });

  it('accepts any key in the generic HERMES__SECTION__KEY form, typed as the key expects', () => {
    const config = load({
      env: {
        HERMES__WORKER__SHUTDOWN_GRACE_SECONDS: '60',
        HERMES__TEMPORAL__DEV_SERVER__UI_PORT: '9000',
        HERMES__MODEL__TEMPERATURE: '0.5',
        HERMES__SESSION__DISABLED_TOOLSETS: 'web,browser',
        HERMES__TERMINAL__ENV_PASSTHROUGH: 'GITHUB_TOKEN',
        HERMES__MODEL__NAME: '4',
      },
    });
    expect(config.worker.shutdown_grace_seconds).toBe(60);
    expect(config.temporal.dev_server.ui_port).toBe(9000);
    expect(config.model.temperature).toBe(0.5);
    expect(config.session.disabled_toolsets).toEqual(['web', 'browser']);
    // A one-item list and a string that looks like a number are still read as their key's type.
    expect(config.terminal.env_passthrough).toEqual(['GITHUB_TOKEN']);
    expect(config.model.name).toBe('4');
  });
});

describe('derived paths', () => {
  it('resolves a relative session cwd against the project directory', () => {
    writeTrustedProjectConfig('session:\n  cwd: work/here\n');
    expect(load().session.cwd).toBe(path.join(projectDir, 'work', 'here'));
  });

  it('keeps explicit store and dev-server paths', () => {
    const config = load({
      env: { HERMES_STORE_PATH: path.join(root, 'elsewhere', 'store.db') },
      flags: { temporal: { dev_server: { db_file: '/var/lib/temporal.db' } } },
    });
    expect(config.store.path).toBe(path.join(root, 'elsewhere', 'store.db'));
    expect(config.temporal.dev_server.db_file).toBe('/var/lib/temporal.db');
  });

  it('reads ~/ in file settings as the home folder (the README writes them so), not as a ./~ folder', () => {
    writeFileSync(
      homeConfig(),
      [
        'store: { path: ~/.hermes-temporal/sessions.db }',
        'temporal: { cli_path: ~/bin/temporal, dev_server: { db_file: ~/.hermes-temporal/temporal.db } }',
        'terminal: { local: { bwrap_path: ~/bin/bwrap } }',
        'logging: { file: ~/hermes.jsonl }',
      ].join('\n'),
    );
    const config = load();
    expect(config.store.path).toBe(path.join(os.homedir(), '.hermes-temporal', 'sessions.db'));
    expect(config.temporal.dev_server.db_file).toBe(path.join(os.homedir(), '.hermes-temporal', 'temporal.db'));
    expect(config.temporal.cli_path).toBe(path.join(os.homedir(), 'bin', 'temporal'));
    expect(config.terminal.local.bwrap_path).toBe(path.join(os.homedir(), 'bin', 'bwrap'));
    expect(config.logging.file).toBe(path.join(os.homedir(), 'hermes.jsonl'));
  });
});

describe('bad values fail at once, naming the key, the reason and the source', () => {
  it('reports a number that is not a number, from the environment', () => {
    const message = configErrorOf(() => load({ env: { HERMES_MAX_TURNS: 'lots' } }));
    expect(message).toMatch(/session\.max_turns: .*expected number.*\(from environment\)/);
  });

  it('reports an unknown key with its full path and the file it is in', () => {
    writeFileSync(homeConfig(), 'model:\n  name: fine\n');
    writeTrustedProjectConfig('model:\n  nmae: typo\n');
    const message = configErrorOf(() => load());
    expect(message).toContain('model.nmae');
    expect(message).toContain(`(from ${projectConfig()})`);
    expect(message).not.toContain(homeConfig());
  });

  it('takes MCP servers from the home config but refuses them in the project file, where the agent can write', () => {
    writeFileSync(homeConfig(), 'mcp_servers:\n  everything:\n    command: node\n    args: [server.js]\n');
    expect(load().mcp_servers.everything?.command).toBe('node');
    writeTrustedProjectConfig('mcp_servers:\n  evil:\n    command: sh\n');
    expect(configErrorOf(() => load())).toContain('mcp_servers: may not be set in the project file');
  });

  it('reports a limit on what runs at once that the server could not hold', () => {
    const message = configErrorOf(() => load({ env: { HERMES__SESSION__MAX_PARALLEL_WATCHES: '5000' } }));
    expect(message).toMatch(/session\.max_parallel_watches: .*900.*\(from environment\)/);
  });

  it('reports an unknown top-level key with its source', () => {
    writeTrustedProjectConfig('modle:\n  name: typo\n');
    const message = configErrorOf(() => load());
    expect(message).toContain('modle');
    expect(message).toContain(`(from ${projectConfig()})`);
  });

  it('reports an unknown key given in the generic environment form', () => {
    const message = configErrorOf(() => load({ env: { HERMES__MODEL__NMAE: 'x' } }));
    expect(message).toMatch(/model\.nmae.*\(from environment\)/);
  });

  it('reports an invalid model URL', () => {
    const message = configErrorOf(() => load({ env: { OPENAI_BASE_URL: 'not a url' } }));
    expect(message).toMatch(/model\.base_url: Invalid URL \(from environment\)/);
  });

  it('reports a negative timeout from the file that set it', () => {
    writeFileSync(homeConfig(), 'terminal:\n  timeout_seconds: -5\n');
    const message = configErrorOf(() => load());
    expect(message).toMatch(/terminal\.timeout_seconds: Too small.*\(from .*config\.yaml\)/);
    expect(message).toContain(homeConfig());
  });

  it('reports an unknown terminal backend and lists the valid ones', () => {
    const message = configErrorOf(() => load({ flags: { terminal: { backend: 'kubernetes' as 'local' } } }));
    expect(message).toMatch(/terminal\.backend: .*"local".*"docker".*\(from command-line flags\)/);
  });

  it('reports every problem at once, one line each', () => {
    writeTrustedProjectConfig('model:\n  timeout_seconds: 0\nlogging:\n  level: loud\n');
    const message = configErrorOf(() => load({ env: { HERMES_MAX_TURNS: '-1' } }));
    expect(message.split('\n').filter((line) => line.startsWith('  '))).toHaveLength(3);
    expect(message).toMatch(/model\.timeout_seconds: /);
    expect(message).toMatch(/logging\.level: /);
    expect(message).toMatch(/session\.max_turns: .*\(from environment\)/);
  });

  it('blames the later source when it replaces a good value with a bad one', () => {
    writeFileSync(homeConfig(), 'session:\n  max_turns: 10\n');
    writeTrustedProjectConfig('session:\n  max_turns: ten\n');
    const message = configErrorOf(() => load());
    expect(message).toContain(`session.max_turns: expected number, received string (from ${projectConfig()})`);
  });

  it('reports a section given as a plain value', () => {
    writeTrustedProjectConfig('model: gpt-4o\n');
    expect(configErrorOf(() => load())).toMatch(/model: expected object.*\(from .*hermes-temporal\.yaml\)/);
  });

  it('reports a config file that is not valid YAML, naming the file', () => {
    writeTrustedProjectConfig('model: [\n  name: x\n');
    const message = configErrorOf(() => load());
    expect(message).toContain(projectConfig());
    expect(message).toContain('is not valid YAML');
  });

  it('reports a config file that holds a list instead of settings', () => {
    writeFileSync(homeConfig(), '- model\n- session\n');
    expect(configErrorOf(() => load())).toContain(`${homeConfig()} must contain a mapping of settings`);
  });
});

describe('configFromFlags (the run command flags)', () => {
  const savedHome = process.env.HERMES_TEMPORAL_HOME;

  beforeEach(() => {
    process.env.HERMES_TEMPORAL_HOME = home;
    jest.spyOn(process, 'cwd').mockReturnValue(projectDir);
  });

  afterEach(() => {
    jest.restoreAllMocks();
    if (savedHome === undefined) delete process.env.HERMES_TEMPORAL_HOME;
    else process.env.HERMES_TEMPORAL_HOME = savedHome;
  });

  it('rejects a --max-turns that is not a number, naming the key and the flags as the source', () => {
    const message = configErrorOf(() => configFromFlags({ maxTurns: 'abc' }));
    expect(message).toContain('session.max_turns');
    expect(message).toContain('command-line flags');
  });

  it('rejects a --max-turns of zero', () => {
    expect(configErrorOf(() => configFromFlags({ maxTurns: '0' }))).toMatch(/session\.max_turns: Too small/);
  });

  it('turns the flags into configuration values', () => {
    const config = configFromFlags({
      toolsets: 'a, b',
      maxTurns: '12',
      model: 'flag-model',
      baseUrl: 'http://127.0.0.1:9/v1',
      apiKey: 'flag-key',
      cwd: 'sub',
    });
    expect(config.session.toolsets).toEqual(['a', 'b']);
    expect(config.session.max_turns).toBe(12);
    expect(config.model).toMatchObject({ name: 'flag-model', base_url: 'http://127.0.0.1:9/v1', api_key: 'flag-key' });
    expect(config.session.cwd).toBe(path.join(projectDir, 'sub'));
  });

  it('rejects a --base-url that is not a URL', () => {
    expect(configErrorOf(() => configFromFlags({ baseUrl: 'localhost' }))).toMatch(
      /model\.base_url: Invalid URL \(from command-line flags\)/,
    );
  });
});

describe('plugins and shell hooks', () => {
  it('are read from the home config with their defaults', () => {
    writeFileSync(homeConfig(), 'plugins:\n  enabled: [echo]\nhooks:\n  - event: pre_tool_call\n    command: ~/bin/guard\n');
    const config = load();
    expect(config.plugins).toEqual({ enabled: ['echo'], disabled: [], project: false, hook_timeout_seconds: 30 });
    expect(config.hooks).toEqual([{ event: 'pre_tool_call', command: '~/bin/guard', timeout_seconds: 60 }]);
  });

  it('may not be set in the project file, which the agent can write: they run code on the worker', () => {
    writeTrustedProjectConfig('plugins:\n  project: true\nhooks: []\n');
    const message = configErrorOf(() => load());
    expect(message).toContain('plugins: may not be set in the project file');
    expect(message).toContain('hooks: may not be set in the project file');
  });
});

describe('the project file is used only as its user last trusted it', () => {
  it('refuses a project file nobody trusted, saying how to trust it', () => {
    writeFileSync(projectConfig(), 'approvals:\n  mode: "off"\n');
    const message = configErrorOf(() => load());
    expect(message).toContain(`${projectConfig()} is not trusted yet`);
    expect(message).toContain(`run \`hermes-temporal trust\` in ${projectDir}`);
  });

  it('refuses a trusted file once it changed, and uses it again as trusted', () => {
    writeTrustedProjectConfig('approvals:\n  mode: manual\n');
    expect(load().approvals.mode).toBe('manual');
    writeFileSync(projectConfig(), 'approvals:\n  mode: "off"\n');
    expect(configErrorOf(() => load())).toContain(`${projectConfig()} is changed since it was trusted`);
    writeFileSync(projectConfig(), 'approvals:\n  mode: manual\n');
    expect(load().approvals.mode).toBe('manual');
  });

  it("refuses a project file that links to another folder's trusted file, saying why", () => {
    const trustedElsewhere = path.join(root, 'scratch');
    mkdirSync(trustedElsewhere);
    writeFileSync(path.join(trustedElsewhere, PROJECT_CONFIG_FILE), 'approvals:\n  mode: "off"\n');
    trustProjectFile(home, readProjectFile(path.join(trustedElsewhere, PROJECT_CONFIG_FILE))!);
    symlinkSync(path.join('..', 'scratch', PROJECT_CONFIG_FILE), projectConfig());
    expect(configErrorOf(() => load())).toContain(`${projectConfig()} is a symbolic link`);
  });

  it("refuses a project folder named through a link: its real folder's trust is not lent to it", () => {
    writeTrustedProjectConfig('session:\n  max_turns: 7\n');
    const linked = path.join(root, 'linked');
    symlinkSync(projectDir, linked);
    const message = configErrorOf(() => loadConfig({ env: { HERMES_TEMPORAL_HOME: home }, projectDir: linked }));
    expect(message).toContain('is reached through a symbolic link');
    expect(message).toContain(`run in ${projectDir} itself`);
  });

  it('trusts a file in its own folder only: the same bytes in another folder are not trusted', () => {
    writeTrustedProjectConfig('approvals:\n  mode: "off"\n');
    const other = path.join(root, 'other');
    mkdirSync(other);
    writeFileSync(path.join(other, PROJECT_CONFIG_FILE), 'approvals:\n  mode: "off"\n');
    expect(configErrorOf(() => loadConfig({ env: { HERMES_TEMPORAL_HOME: home }, projectDir: other }))).toContain('is not trusted yet');
  });

  it('refuses a project file that is not a regular file (a FIFO cannot hang the CLI)', () => {
    execFileSync('mkfifo', [projectConfig()]);
    expect(configErrorOf(() => load())).toContain('is not a regular file');
  });

  it('trusts nothing when the record of trusted files is damaged', () => {
    writeTrustedProjectConfig('session:\n  max_turns: 7\n');
    writeFileSync(trustRecordFile(home), '{ not json');
    expect(configErrorOf(() => load())).toContain('is not trusted yet');
  });
});
