// docker-compose.yml runs the configuration the scale-out suite tests (scripts/services/temporal-server.sh,
// test/backends/scale-out/): the same server version, config file, schema steps, search attributes
// and worker environment. The stack cannot start here (no image registry), so both are read.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { HERMES_SEARCH_ATTRIBUTES } from '../../../src/temporal/search-attributes';
import { DEPLOYMENT_ENV_NAMES } from '../../helpers/scale-out';

const ROOT = path.resolve(__dirname, '../../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

interface Service {
  image?: string;
  environment?: Record<string, string | number | null>;
  volumes?: string[];
  entrypoint?: string[];
  command?: string[];
  ports?: string[];
}
const compose = parseYaml(read('docker-compose.yml')) as { services: Record<string, Service> };
const service = (name: string): Service => compose.services[name] ?? ({});
const script = read('scripts/services/temporal-server.sh');
const testedVersion = /^TEMPORAL_SERVER_VERSION=v(\S+)$/m.exec(script)?.[1];
const CONFIG_FOLDER = './scripts/services/temporal-server';

/** Where a service mounts the project's Temporal config folder. */
const configMountOf = (name: string) =>
  (service(name).volumes ?? []).map((volume) => volume.split(':')).find(([source]) => source === CONFIG_FOLDER)?.[1];

describe('docker-compose.yml runs the Temporal configuration the scale-out suite tests', () => {
  test('the same server version as scripts/services/temporal-server.sh builds', () => {
    expect(testedVersion).toMatch(/^\d+\.\d+\.\d+$/);
    expect(service('temporal').image).toBe(`temporalio/server:${testedVersion}`);
    expect(service('temporal-schema').image).toBe(`temporalio/admin-tools:${testedVersion}`);
    expect(service('temporal-admin-tools').image).toBe(`temporalio/admin-tools:${testedVersion}`);
  });

  test('the same config file and dynamic config, mounted from the repository', () => {
    const mount = configMountOf('temporal');
    expect(mount).toBeDefined();
    expect(service('temporal').environment).toMatchObject({
      TEMPORAL_SERVER_CONFIG_FILE_PATH: `${mount}/config.yaml`,
      DYNAMIC_CONFIG_FILE_PATH: `${mount}/dynamic-config.yaml`,
    });
    expect(script).toContain('--config-file "$HERE/config.yaml"');
    expect(script).toContain('DYNAMIC_CONFIG_FILE_PATH="$HERE/dynamic-config.yaml"');
  });

  test('the config reads exactly the variables both set', () => {
    const variables = new Set([...read('scripts/services/temporal-server/config.yaml').matchAll(/env "([A-Z_]+)"/g)].map((match) => match[1]));
    const composeSets = Object.keys(service('temporal').environment ?? {});
    // LOG_LEVEL has a default; BIND_ON_IP and TEMPORAL_BROADCAST_ADDRESS come from the image's entrypoint in the stack.
    variables.delete('LOG_LEVEL');
    expect(variables.size).toBeGreaterThan(5);
    for (const name of variables) {
      if (name !== 'BIND_ON_IP' && name !== 'TEMPORAL_BROADCAST_ADDRESS') expect(composeSets).toContain(name);
      expect(script).toContain(`${name}=`);
    }
  });

  test('the same schema steps: setup-schema.sh with the server’s own temporal-sql-tool', () => {
    const mount = configMountOf('temporal-schema');
    expect(service('temporal-schema').entrypoint).toEqual(['/bin/sh', `${mount}/setup-schema.sh`]);
    expect(script).toContain('"$HERE/setup-schema.sh"');
    expect(read('scripts/services/temporal-server/setup-schema.sh')).toMatch(/update-schema --schema-name "postgresql\/v12\/\$schema"/);
  });

  test('the same search attributes as the suite’s server registers (the project’s list)', () => {
    const registered = (service('temporal-admin-tools').command ?? [])
      .join('\n')
      .split('\n')
      .filter((line) => line.includes('search-attribute create'))
      .map((line) => `${/--name (\S+)/.exec(line)?.[1]}:${/--type (\S+)/.exec(line)?.[1]}`);
    expect(registered.sort()).toEqual(HERMES_SEARCH_ATTRIBUTES.map(({ name, type }) => `${name}:${type}`).sort());
    expect(read('scripts/services/temporal-server/prepare-namespace.ts')).toContain('ensureSearchAttributes(connection, namespace)');
  });

  test('publishes the server and the UI on loopback only: whoever reaches them can start sessions and send signals', () => {
    const published = Object.values(compose.services).flatMap((entry) => entry.ports ?? []);
    expect(published.length).toBeGreaterThan(0);
    for (const port of published) expect(port).toMatch(/^127\.0\.0\.1:\d+:\d+$/);
  });

  test('the same worker environment as the suite’s worker processes, the PostgreSQL store included', () => {
    const environment = service('worker').environment ?? {};
    for (const name of DEPLOYMENT_ENV_NAMES) expect(Object.keys(environment)).toContain(name);
    expect(String(environment.HERMES_STORE_POSTGRES_URL)).toMatch(/^postgres:\/\/temporal:temporal@postgresql:5432\/hermes$/);
    expect(service('postgresql').environment?.POSTGRES_DB).toBe('hermes');
  });
});
