// The Daytona backend through its SDK seam, with a local stand-in behind it that behaves like the
// toolbox daemon (no shell: the command string is split on spaces, quotes grouping) and really
// runs every command on this machine. Live tests against Daytona run only with DAYTONA_API_KEY.
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { configSchema } from '../../../src/config/schema';
import { DaytonaDriver, daytonaCredentials, type DaytonaSettings } from '../../../src/environments/daytona/daytona-driver';
import type { EnvironmentHandle } from '../../../src/environments/terminal-environment';
import { sandboxBehaviourTests } from '../../helpers/sandbox-backend-suite';
import { describeWithService } from '../../helpers/services';
import { LocalDaytonaStandIn, parseDaemonCommand } from './local-daytona-stand-in';

const settings = (overrides: Partial<DaytonaSettings> = {}): DaytonaSettings => ({ ...configSchema.parse({}).terminal.daytona, ...overrides });
let counter = 0;
const sessionId = () => `d${process.pid}x${Date.now().toString(36)}x${(counter += 1)}`;

describe('[local stand-in for Daytona] Daytona backend', () => {
  const api = new LocalDaytonaStandIn();
  let workdir: string;

  beforeAll(() => {
    workdir = path.join(realpathSync(mkdtempSync(path.join(os.tmpdir(), 'hermes-daytona-'))), 'workspace');
    mkdirSync(workdir);
  });

  afterAll(() => {
    api.terminateAll();
    rmSync(path.dirname(workdir), { recursive: true, force: true });
  });

  const handleFor = (id = sessionId()): EnvironmentHandle => ({ backend: 'daytona', cwd: workdir, sessionId: id });
  const driver = () => new DaytonaDriver(settings({ workdir }), { api, killGraceMs: 500 });

  test('[local stand-in for Daytona] one sandbox per session: created by name with labels; found again by id or name; a stopped one is started; deleted at the end', async () => {
    const id = sessionId();
    const first = await driver().start(handleFor(id));
    expect(api.calls.find((call) => call.method === 'create')?.args[0]).toEqual({ name: `hermes-${id}`, image: 'python:3.12-slim', labels: { hermes_session: id } });
    expect(first).toMatchObject({ id: expect.stringMatching(/^sb-/), details: { name: `hermes-${id}` } });

    api.calls.length = 0;
    expect((await driver().start(first)).id).toBe(first.id);
    expect(api.methods()).toEqual(['find']);

    api.stop(first.id!);
    api.calls.length = 0;
    const { id: _lost, ...withoutId } = first;
    expect((await driver().start(withoutId)).id).toBe(first.id);
    expect(api.methods()).toEqual(['find', 'start']);

    api.calls.length = 0;
    await driver().destroy(first);
    expect(api.methods()).toEqual(['delete']);
    expect(await api.find(first.id!)).toBeUndefined();
  });

  test('[local stand-in for Daytona] every command is one `bash -c` line that survives the daemon splitting it without a shell', async () => {
    const daytona = driver();
    const handle = await daytona.start(handleFor());
    const environment = await daytona.attach(handle);
    api.calls.length = 0;
    const chunks: string[] = [];
    const result = await environment.exec({
      command: `echo "a  b" | tr a-z A-Z && echo 'it'"'"'s' > q.txt; cat q.txt; echo $NAME_WITH_SPACES`,
      env: { NAME_WITH_SPACES: 'one two' },
      timeoutMs: 10_000,
      onOutput: (chunk) => chunks.push(chunk),
    });
    expect(result).toMatchObject({ exitCode: 0, output: "A  B\nit's\none two\n" });
    // executeCommand answers once, at the end: the output arrives in one piece.
    expect(chunks).toHaveLength(1);
    const [call] = api.calls;
    const [, command, options] = call?.args as [string, string, { env: Record<string, string>; timeoutSeconds: number }];
    const argv = parseDaemonCommand(command);
    expect(argv).toHaveLength(3);
    expect(argv.slice(0, 2)).toEqual(['bash', '-c']);
    expect(argv[2]).toMatch(/^eval "\$\(echo [A-Za-z0-9+/=]+ \| base64 -d\)"$/);
    // Variables go as the API's env; Daytona's own timeout is only a backstop behind ours.
    expect(options).toEqual({ env: { NAME_WITH_SPACES: 'one two' }, timeoutSeconds: 40 });
    await daytona.destroy(handle);
  });

  describe('[local stand-in for Daytona] shared sandbox behaviour', () => {
    sandboxBehaviourTests(() => ({ newDriver: driver, handle: handleFor() }));
  });
});

describe('Daytona backend configuration', () => {
  test('without an API key the backend says which variable to set', async () => {
    expect(await new DaytonaDriver(settings(), { env: {} }).unavailableReason()).toBe('Daytona credentials are missing: set DAYTONA_API_KEY (or terminal.daytona.api_key)');
  });

  test('the key, API URL and target are always explicit, so the SDK never reads .env files', () => {
    expect(daytonaCredentials(settings(), { DAYTONA_API_KEY: 'dk' })).toEqual({ apiKey: 'dk', apiUrl: 'https://app.daytona.io/api', target: 'us' });
    expect(daytonaCredentials(settings({ api_key: 'cfg', target: 'eu' }), { DAYTONA_API_KEY: 'dk', DAYTONA_API_URL: 'https://daytona.example/api' })).toEqual({
      apiKey: 'cfg',
      apiUrl: 'https://daytona.example/api',
      target: 'eu',
    });
  });
});

describeWithService('daytona-credentials', ['DAYTONA_API_KEY'], '[live Daytona] Daytona backend against the real service', (env) => {
  sandboxBehaviourTests(() => ({
    newDriver: () => new DaytonaDriver(settings(), { env, killGraceMs: 1000 }),
    handle: { backend: 'daytona', cwd: '/home/daytona/workspace', sessionId: sessionId() },
  }));
});
