// What an operator relies on in docker-compose.yml and the Dockerfile. No Docker engine runs the
// tests, so the files are parsed; the admin job's shell script runs against a stand-in `temporal`.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { isNpmCommand, runCommand } from '../../scripts/check-dockerfile-install';
import { HERMES_SEARCH_ATTRIBUTES } from '../../src/temporal/search-attributes';

const repoRoot = path.resolve(__dirname, '../..');
const readRepoFile = (name: string): string => readFileSync(path.join(repoRoot, name), 'utf8');

interface ComposeService {
  image?: string;
  build?: string | { context?: string; dockerfile?: string };
  environment?: Record<string, string | number | boolean | null> | string[];
  depends_on?: string[] | Record<string, { condition?: string }>;
  ports?: (string | number | { target: number; published: number | string })[];
  volumes?: (string | { type?: string; source?: string; target: string })[];
  healthcheck?: { test: string | string[] };
  entrypoint?: string | string[];
  command?: string | string[];
  container_name?: string;
  stop_grace_period?: string;
  deploy?: { replicas?: number };
}

interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

const compose = parseYaml(readRepoFile('docker-compose.yml')) as ComposeFile;

function service(name: string): ComposeService {
  const found = compose.services[name];
  if (!found) throw new Error(`docker-compose.yml has no service "${name}"`);
  return found;
}

function environmentOf(name: string): Record<string, string> {
  const environment = service(name).environment ?? {};
  if (Array.isArray(environment)) {
    return Object.fromEntries(
      environment.map((entry) => {
        const separator = entry.indexOf('=');
        return separator < 0 ? [entry, ''] : [entry.slice(0, separator), entry.slice(separator + 1)];
      }),
    );
  }
  return Object.fromEntries(Object.entries(environment).map(([key, value]) => [key, value === null ? '' : String(value)]));
}

/** Service name -> condition (`service_started` when the short list form is used). */
function dependenciesOf(name: string): Record<string, string> {
  const dependsOn = service(name).depends_on ?? {};
  if (Array.isArray(dependsOn)) return Object.fromEntries(dependsOn.map((dependency) => [dependency, 'service_started']));
  return Object.fromEntries(
    Object.entries(dependsOn).map(([dependency, options]) => [dependency, options.condition ?? 'service_started']),
  );
}

/** Published ports as `host:container`. */
function portsOf(name: string): string[] {
  return (service(name).ports ?? []).map((port) => {
    if (typeof port === 'object') return `${port.published}:${port.target}`;
    const parts = String(port).split(':');
    return parts.slice(-2).join(':');
  });
}

/** Volume mounts as target path -> source (named volume or host path). */
function mountsOf(name: string): Record<string, string> {
  return Object.fromEntries(
    (service(name).volumes ?? []).map((volume) => {
      if (typeof volume === 'object') return [volume.target, volume.source ?? ''];
      const [source = '', target = ''] = volume.split(':');
      return [target, source];
    }),
  );
}

function commandTextOf(name: string): string {
  const command = service(name).command ?? '';
  return Array.isArray(command) ? command.join('\n') : command;
}

/** Compose replaces `$$` with `$` before the container sees the text. */
const asContainerSees = (text: string): string => text.replaceAll('$$', '$');

const seconds = (duration: string): number => {
  const match = /^(\d+)(s|m)$/.exec(duration);
  if (!match) throw new Error(`unsupported duration ${duration}`);
  return Number(match[1]) * (match[2] === 'm' ? 60 : 1);
};

describe('docker-compose.yml: the production-like stack', () => {
  test('defines PostgreSQL, the schema job, Temporal, the namespace job, the Web UI and the worker', () => {
    expect(Object.keys(compose.services).sort()).toEqual(
      ['postgresql', 'temporal-schema', 'temporal', 'temporal-admin-tools', 'temporal-ui', 'worker'].sort(),
    );
  });

  test('PostgreSQL keeps its data on a named volume and reports when it is ready', () => {
    const postgresql = service('postgresql');
    expect(postgresql.image).toMatch(/^postgres:\d+/);
    const dataVolume = mountsOf('postgresql')['/var/lib/postgresql/data'];
    expect(dataVolume).toBeDefined();
    expect(Object.keys(compose.volumes ?? {})).toContain(dataVolume);
    expect(JSON.stringify(postgresql.healthcheck?.test)).toContain('pg_isready');
  });

  test('Temporal stores its history in PostgreSQL and starts once the schema job has set it up', () => {
    for (const name of ['temporal', 'temporal-schema']) {
      const environment = environmentOf(name);
      expect(environment.POSTGRES_HOST).toBe('postgresql');
      expect(environment.POSTGRES_USER).toBe(environmentOf('postgresql').POSTGRES_USER);
      expect(environment.POSTGRES_PWD).toBe(environmentOf('postgresql').POSTGRES_PASSWORD);
    }
    expect(dependenciesOf('temporal-schema')).toEqual({ postgresql: 'service_healthy' });
    expect(dependenciesOf('temporal')).toEqual({ 'temporal-schema': 'service_completed_successfully' });
  });

  test('clients on the host reach Temporal at localhost:7233; the namespace job waits for it to be healthy', () => {
    expect(service('temporal').image).toMatch(/^temporalio\/server:\d+\.\d+\.\d+/);
    expect(portsOf('temporal')).toContain('7233:7233');
    expect(commandTextOf('temporal-admin-tools')).toMatch(/temporal operator cluster health --address temporal:7233/);
  });

  test('the Web UI at localhost:8080 shows the stack’s Temporal server', () => {
    expect(service('temporal-ui').image).toMatch(/^temporalio\/ui:/);
    expect(environmentOf('temporal-ui').TEMPORAL_ADDRESS).toBe('temporal:7233');
    expect(portsOf('temporal-ui')).toContain('8080:8080');
  });

  describe('the search-attribute job', () => {
    const script = asContainerSees(commandTextOf('temporal-admin-tools'));
    const createCommands = script.split('\n').filter((line) => line.includes('temporal operator search-attribute create'));

    test('registers exactly the search attributes the workflow upserts, with their types', () => {
      const registered = createCommands.map((line) => ({
        name: /--name\s+(\S+)/.exec(line)?.[1],
        type: /--type\s+(\S+)/.exec(line)?.[1],
      }));
      const byName = (left: { name?: string }, right: { name?: string }) => (left.name ?? '').localeCompare(right.name ?? '');
      expect(registered.sort(byName)).toEqual(HERMES_SEARCH_ATTRIBUTES.map(({ name, type }) => ({ name, type })).sort(byName));
    });

    test('registers them on the stack’s server, in the namespace the worker uses, once it is healthy', () => {
      expect(service('temporal-admin-tools').image).toMatch(/^temporalio\/admin-tools:/);
      expect(environmentOf('temporal-admin-tools').TEMPORAL_ADDRESS).toBe('temporal:7233');
      expect(dependenciesOf('temporal-admin-tools')).toEqual({ temporal: 'service_started' });
      expect(script).toContain(`temporal operator namespace create --address temporal:7233 --namespace ${environmentOf('worker').TEMPORAL_NAMESPACE}`);
      expect(createCommands.length).toBeGreaterThan(0);
      for (const line of createCommands) {
        expect(line).toContain('--address temporal:7233');
        expect(line).toContain(`--namespace ${environmentOf('worker').TEMPORAL_NAMESPACE}`);
      }
    });

    test('its shell variables are escaped from compose interpolation', () => {
      // A lone `$name` would be replaced by the operator's shell environment before the container runs.
      expect(commandTextOf('temporal-admin-tools').replaceAll('$$', '')).not.toContain('$');
    });

    describe('run against a stand-in temporal CLI', () => {
      let binDirectory: string;
      beforeAll(() => {
        binDirectory = mkdtempSync(path.join(os.tmpdir(), 'hermes-compose-'));
        const fakeTemporal = path.join(binDirectory, 'temporal');
        writeFileSync(
          fakeTemporal,
          [
            '#!/bin/sh',
            'case "$*" in',
            '  *"cluster health"*) echo SERVING; exit 0 ;;',
            '  *"namespace create"*) exit 0 ;;',
            '  *"search-attribute create"*)',
            '    echo "$*" >> "$FAKE_LOG"',
            '    if [ -n "$FAKE_CREATE_ERROR" ]; then echo "Error: $FAKE_CREATE_ERROR"; exit 1; fi',
            '    echo "Search attributes have been added"; exit 0 ;;',
            'esac',
            'exit 2',
            '',
          ].join('\n'),
        );
        chmodSync(fakeTemporal, 0o755);
      });
      afterAll(() => rmSync(binDirectory, { recursive: true, force: true }));

      const runScript = (createError: string) => {
        const log = path.join(binDirectory, `calls-${Math.random().toString(36).slice(2)}.log`);
        const result = spawnSync('bash', ['-c', script], {
          env: { ...process.env, PATH: `${binDirectory}:${process.env.PATH ?? ''}`, FAKE_LOG: log, FAKE_CREATE_ERROR: createError },
          encoding: 'utf8',
          timeout: 20_000,
        });
        const calls = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [];
        return { status: result.status, calls };
      };

      test('completes successfully on a fresh server, one create per attribute', () => {
        const { status, calls } = runScript('');
        expect(status).toBe(0);
        expect(calls).toHaveLength(HERMES_SEARCH_ATTRIBUTES.length);
      });

      test('is safe to re-run: attributes that already exist count as registered', () => {
        const { status } = runScript('unable to add search attributes: Search attribute HermesStatus already exists.');
        expect(status).toBe(0);
      });

      test('fails, so the worker does not start, when an attribute exists with another type', () => {
        const { status, calls } = runScript('search attribute HermesToolCalls already exists and has different type Keyword');
        expect(status).not.toBe(0);
        expect(calls).toHaveLength(1);
      });
    });
  });

  describe('the worker', () => {
    test('is built from this repository’s Dockerfile', () => {
      const build = service('worker').build;
      const context = typeof build === 'string' ? build : build?.context;
      const dockerfile = typeof build === 'object' ? (build.dockerfile ?? 'Dockerfile') : 'Dockerfile';
      expect(path.resolve(repoRoot, context ?? '')).toBe(repoRoot);
      expect(existsSync(path.join(repoRoot, context ?? '.', dockerfile))).toBe(true);
    });

    test('connects to the stack’s Temporal and polls the hermes task queue', () => {
      const environment = environmentOf('worker');
      expect(environment.TEMPORAL_ADDRESS).toBe('temporal:7233');
      expect(environment.TEMPORAL_NAMESPACE).toBe('default');
      expect(environment.HERMES_TASK_QUEUE).toBeTruthy();
    });

    test('takes the model settings from the operator’s shell, with a default model', () => {
      const environment = environmentOf('worker');
      expect(environment.OPENAI_API_KEY).toBe('${OPENAI_API_KEY:-}');
      expect(environment.OPENAI_BASE_URL).toBe('${OPENAI_BASE_URL:-}');
      expect(environment.HERMES_MODEL).toMatch(/^\$\{HERMES_MODEL:-.+\}$/);
    });

    test('keeps the session store and the agents’ workspace on named volumes that survive restarts', () => {
      const mounts = mountsOf('worker');
      const home = environmentOf('worker').HERMES_TEMPORAL_HOME ?? '';
      expect(home).toBe('/data');
      const declaredVolumes = Object.keys(compose.volumes ?? {});
      expect(declaredVolumes).toContain(mounts[home]);
      expect(declaredVolumes).toContain(mounts['/workspace']);
    });

    test('starts only after Temporal is healthy and the search attributes are registered', () => {
      expect(dependenciesOf('worker')).toEqual({ 'temporal-admin-tools': 'service_completed_successfully' });
    });

    test('gets time to drain running tools when stopped, longer than its own shutdown grace', () => {
      const stopGrace = seconds(service('worker').stop_grace_period ?? '10s');
      expect(stopGrace).toBeGreaterThanOrEqual(60);
      const workerGrace = environmentOf('worker').HERMES__WORKER__SHUTDOWN_GRACE_SECONDS;
      if (workerGrace !== undefined) expect(Number(workerGrace)).toBeLessThan(stopGrace);
    });

    test('can be scaled with --scale worker=N (no fixed container name or host port)', () => {
      expect(service('worker').container_name).toBeUndefined();
      expect(service('worker').ports).toBeUndefined();
      expect(service('worker').deploy?.replicas).toBe(1);
    });
  });
});

describe('Dockerfile: the worker image', () => {
  /** Instructions per stage, with line continuations joined and comments dropped. */
  const stages = readRepoFile('Dockerfile')
    .replace(/\\\r?\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .reduce<{ from: string; instructions: string[] }[]>((all, line) => {
      if (/^FROM\s/i.test(line)) all.push({ from: line, instructions: [] });
      else all.at(-1)?.instructions.push(line);
      return all;
    }, []);
  const finalStage = stages.at(-1)!;
  const packageJson = JSON.parse(readRepoFile('package.json')) as { bin: Record<string, string> };

  test('builds on Node 20 and compiles the project with npm run build', () => {
    expect(stages.length).toBeGreaterThan(1);
    // Every stage starts from node:20-bookworm-slim or from an earlier stage.
    const stageNames: string[] = [];
    for (const stage of stages) {
      const [, base = '', name] = /^FROM\s+(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?/i.exec(stage.from) ?? [];
      expect(base === 'node:20-bookworm-slim' || stageNames.includes(base)).toBe(true);
      if (name) stageNames.push(name);
    }
    expect(stages.some((stage) => stage.instructions.some((line) => /^RUN\s.*npm run build/.test(line)))).toBe(true);
  });

  test('installs with `npm ci` only, in both stages that install: the lockfile as committed', () => {
    // The same reading of RUN lines as scripts/check-dockerfile-install.ts, which .ci/run runs.
    const npmSteps = stages
      .flatMap((stage) => stage.instructions.filter((line) => /^RUN\s/.test(line)).map(runCommand))
      .filter(isNpmCommand)
      .flatMap((command) => command.split('&&').map((part) => part.trim()));
    const installs = npmSteps.filter((step) => /^npm\s+(ci|clean-install|install|i|add)\b/.test(step));
    expect(installs.length).toBeGreaterThanOrEqual(2);
    for (const install of installs) expect(install).toMatch(/^npm ci\b/);
    expect(npmSteps).toContain('npm run build');
  });

  test('starts the compiled worker', () => {
    expect(finalStage.instructions).toContain('ENTRYPOINT ["node", "--max-semi-space-size=2", "/app/dist/worker.js"]');
  });

  test('ships the compiled dist (where the hermes-temporal bin lives) and production node_modules', () => {
    const copies = finalStage.instructions.filter((line) => /^COPY\s+--from=/.test(line));
    expect(copies.some((line) => /\/app\/dist\s+\.\/dist$/.test(line))).toBe(true);
    expect(copies.some((line) => /\/app\/node_modules\s+\.\/node_modules$/.test(line))).toBe(true);
    for (const binPath of Object.values(packageJson.bin)) expect(binPath.startsWith('dist/')).toBe(true);
    expect(stages.some((stage) => stage.instructions.some((line) => /npm ci --omit=dev/.test(line)))).toBe(true);
  });

  test('runs as the unprivileged hermes user in /workspace, with bash and git for the tools', () => {
    expect(finalStage.instructions).toContain('USER hermes');
    expect(finalStage.instructions.filter((line) => line.startsWith('WORKDIR')).at(-1)).toBe('WORKDIR /workspace');
    const installs = finalStage.instructions.filter((line) => /apt-get install/.test(line)).join(' ');
    expect(installs).toMatch(/\bbash\b/);
    expect(installs).toMatch(/\bgit\b/);
    expect(installs).toMatch(/\bca-certificates\b/);
  });

  test('leaves local node_modules, dist and git history out of the build context', () => {
    const ignored = readRepoFile('.dockerignore')
      .split('\n')
      .map((line) => line.trim());
    for (const entry of ['node_modules', 'dist', '.git', '.venv-temporal', 'coverage', '.tmp']) expect(ignored).toContain(entry);
  });
});
