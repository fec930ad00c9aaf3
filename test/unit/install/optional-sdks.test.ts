// The cloud backends' SDKs are optional installs. What a user sees when one is missing (a backend
// that says which package and version to install, and a terminal tool that is unavailable for that
// reason), and what keeps the common install free of them (package.json and the lockfile).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { configSchema } from '../../../src/config/schema';
import { DaytonaDriver } from '../../../src/environments/daytona/daytona-driver';
import { EnvironmentFactory } from '../../../src/environments/factory';
import { ModalDriver } from '../../../src/environments/modal/modal-driver';
import {
  DAYTONA_SDK,
  installCommand,
  loadOptionalSdk,
  MODAL_SDK,
  OPTIONAL_SDKS,
  optionalSdkLine,
  OptionalSdkMissingError,
  optionalSdkStatus,
  VERCEL_SDK,
  type OptionalSdk,
} from '../../../src/environments/optional-sdk';
import { BackendUnavailableError, type EnvironmentDriver } from '../../../src/environments/terminal-environment';
import { VercelDriver } from '../../../src/environments/vercel/vercel-driver';
import { terminalBackendAvailable } from '../../../src/tools/terminal-availability';

const repoRoot = path.resolve(__dirname, '../../..');
const defaults = configSchema.parse({}).terminal;
/** A package that no install brings: resolving it goes through the same seam as the real SDKs. */
const notInstalled = (sdk: OptionalSdk): OptionalSdk => ({ ...sdk, packageName: 'hermes-temporal-no-such-sdk', version: '9.8.7' });
const credentials = {
  MODAL_TOKEN_ID: 'ak-test',
  MODAL_TOKEN_SECRET: 'as-test',
  DAYTONA_API_KEY: 'dtn-test',
  VERCEL_TOKEN: 'token',
  VERCEL_TEAM_ID: 'team',
  VERCEL_PROJECT_ID: 'project',
};

describe('a cloud backend whose SDK is not installed', () => {
  test('its status names the package and the exact install command', () => {
    const status = optionalSdkStatus(notInstalled(MODAL_SDK));
    expect(status.problem).toBe(
      'the modal backend needs the optional package hermes-temporal-no-such-sdk, which is not installed: run `npm install hermes-temporal-no-such-sdk@9.8.7`',
    );
    expect(optionalSdkLine(status)).toContain('npm install hermes-temporal-no-such-sdk@9.8.7');
  });

  test('loading it fails with a BackendUnavailableError that says what to install', async () => {
    const loading = loadOptionalSdk(notInstalled(DAYTONA_SDK));
    await expect(loading).rejects.toBeInstanceOf(OptionalSdkMissingError);
    await expect(loading).rejects.toBeInstanceOf(BackendUnavailableError);
    await expect(loading).rejects.toThrow('run `npm install hermes-temporal-no-such-sdk@9.8.7`');
  });

  const drivers: [string, (sdk: OptionalSdk) => EnvironmentDriver, OptionalSdk][] = [
    ['modal', (sdk) => new ModalDriver(defaults.modal, { env: credentials, sdk }), MODAL_SDK],
    ['daytona', (sdk) => new DaytonaDriver(defaults.daytona, { env: credentials, sdk }), DAYTONA_SDK],
    ['vercel_sandbox', (sdk) => new VercelDriver(defaults.vercel_sandbox, { env: credentials, sdk }), VERCEL_SDK],
  ];

  test.each(drivers)('the %s driver reports the install line even with credentials, and the terminal tool is unavailable for it', async (backend, make, sdk) => {
    const driver = make(notInstalled(sdk));
    const reason = await driver.unavailableReason();
    expect(reason).toContain(`the ${backend} backend needs the optional package hermes-temporal-no-such-sdk`);
    const factory = new EnvironmentFactory([driver]);
    // What the model's tool list is built from: the terminal and file tools carry this reason.
    await expect(terminalBackendAvailable({ terminalUnavailableReason: () => factory.unavailableReason(driver.backend) })).resolves.toBe(
      `terminal backend unavailable: ${reason}`,
    );
  });

  test.each(drivers)('starting a %s session without the SDK fails before anything runs, naming the install', async (backend, make, sdk) => {
    const driver = make(notInstalled(sdk));
    const starting = driver.start({ backend: driver.backend, cwd: '/workspace', sessionId: `s-${backend}` });
    await expect(starting).rejects.toBeInstanceOf(BackendUnavailableError);
    await expect(starting).rejects.toThrow('npm install hermes-temporal-no-such-sdk@9.8.7');
  });
});

describe('an SDK installed at another version than the tested one', () => {
  let folder: string;
  beforeAll(() => {
    folder = mkdtempSync(path.join(os.tmpdir(), 'hermes-optional-sdk-'));
    const packageFolder = path.join(folder, 'node_modules', 'modal');
    mkdirSync(path.join(packageFolder, 'dist'), { recursive: true });
    // `modal@latest` is an unrelated package: the version check is what catches `npm install modal`.
    writeFileSync(path.join(packageFolder, 'package.json'), JSON.stringify({ name: 'modal', version: '1.2.0', main: 'dist/index.js' }));
    writeFileSync(path.join(packageFolder, 'dist', 'package.json'), JSON.stringify({ type: 'commonjs' }));
    writeFileSync(path.join(packageFolder, 'dist', 'index.js'), 'module.exports = {};\n');
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  test('is refused with the install line of the tested version', () => {
    const status = optionalSdkStatus(MODAL_SDK, (name) => require.resolve(name, { paths: [folder] }));
    expect(status.installedVersion).toBe('1.2.0');
    expect(status.problem).toBe('the modal backend is tested with modal@0.11.1, but modal 1.2.0 is installed: run `npm install modal@0.11.1`');
  });
});

describe('the common install leaves the cloud SDKs out', () => {
  const packageJson = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
  const lock = JSON.parse(readFileSync(path.join(repoRoot, 'package-lock.json'), 'utf8')) as { packages: Record<string, unknown> };

  test.each(OPTIONAL_SDKS.map((sdk) => [sdk.packageName, sdk] as const))('%s is in no dependency list of package.json, and its install line pins the tested version', (name, sdk) => {
    // As an optional peer dependency, `npm install <name>@<version>` would install nothing.
    for (const list of ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies']) expect(packageJson[list]?.[name]).toBeUndefined();
    expect(installCommand(sdk)).toBe(`npm install ${name}@${sdk.version}`);
  });

  test('the committed lockfile has none of them, so npm ci neither fetches nor compiles them', () => {
    const locked = Object.keys(lock.packages).filter((key) => OPTIONAL_SDKS.some((sdk) => key.endsWith(`node_modules/${sdk.packageName}`)));
    expect(locked).toEqual([]);
  });
});
