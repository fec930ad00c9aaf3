// The Modal backend through its SDK seam, with a local stand-in behind it: sandboxes are folders on
// this machine and every command really runs there, so exit codes, timeouts, cwd, background
// processes and files are exercised for real. Live tests against Modal run only with credentials.
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { configSchema } from '../../../src/config/schema';
import { ModalDriver, modalCredentials, type ModalSettings } from '../../../src/environments/modal/modal-driver';
import type { EnvironmentHandle } from '../../../src/environments/terminal-environment';
import { sandboxBehaviourTests } from '../../helpers/sandbox-backend-suite';
import { describeWithService } from '../../helpers/services';
import { LocalModalStandIn } from './local-modal-stand-in';

const settings = (overrides: Partial<ModalSettings> = {}): ModalSettings => ({ ...configSchema.parse({}).terminal.modal, ...overrides });
let counter = 0;
const sessionId = () => `m${process.pid}x${Date.now().toString(36)}x${(counter += 1)}`;

describe('[local stand-in for Modal] Modal backend', () => {
  const api = new LocalModalStandIn();
  let workdir: string;

  beforeAll(() => {
    workdir = path.join(realpathSync(mkdtempSync(path.join(os.tmpdir(), 'hermes-modal-'))), 'workspace');
    mkdirSync(workdir);
  });

  afterAll(() => {
    api.terminateAll();
    rmSync(path.dirname(workdir), { recursive: true, force: true });
  });

  const handleFor = (id = sessionId()): EnvironmentHandle => ({ backend: 'modal', cwd: workdir, sessionId: id });
  const driver = () => new ModalDriver(settings({ workdir, app_name: 'hermes-test' }), { api, killGraceMs: 500 });

  test('[local stand-in for Modal] one sandbox per session: created with app, name, image, workdir and lifetime; found again by id, then by name; terminated at the end', async () => {
    const id = sessionId();
    const first = await driver().start(handleFor(id));
    expect(api.calls.find((call) => call.method === 'createSandbox')?.args[0]).toEqual({
      appName: 'hermes-test',
      name: `hermes-${id}`,
      image: 'python:3.12-slim',
      workdir,
      timeoutMs: 3_600_000,
    });
    expect(first).toMatchObject({ id: expect.stringMatching(/^sb-/), details: { app: 'hermes-test', name: `hermes-${id}`, image: 'python:3.12-slim' } });

    api.calls.length = 0;
    expect((await driver().start(first)).id).toBe(first.id);
    expect(api.methods()).toEqual(['isRunning']);

    // A handle that lost its id (a start whose reply never arrived) finds the sandbox by name.
    api.calls.length = 0;
    const { id: _lost, ...withoutId } = first;
    expect((await driver().start(withoutId)).id).toBe(first.id);
    expect(api.methods()).toEqual(['findSandbox']);

    api.calls.length = 0;
    await driver().destroy(first);
    expect(api.methods()).toEqual(['terminate']);
    expect(await api.isRunning(first.id!)).toBe(false);
    // A session whose sandbox is gone (lifetime over) gets a new one.
    const replaced = await driver().start(first);
    expect(replaced.id).not.toBe(first.id);
    await driver().destroy(replaced);
  });

  test('[local stand-in for Modal] commands run as `bash -c` with variables exported in the script (no per-exec env, which Modal turns into a Secret)', async () => {
    const modal = driver();
    const handle = await modal.start(handleFor());
    const environment = await modal.attach(handle);
    api.calls.length = 0;
    const result = await environment.exec({ command: 'echo "$TOKEN_LIKE"', env: { TOKEN_LIKE: "it's here" }, timeoutMs: 10_000 });
    expect(result.output).toBe("it's here\n");
    const [exec] = api.calls;
    expect(exec?.method).toBe('exec');
    const argv = exec?.args[1] as string[];
    expect(argv.slice(0, 2)).toEqual(['bash', '-c']);
    expect(argv[2]).toMatch(/^export TOKEN_LIKE='it'\\''s here'\n/);
    await modal.destroy(handle);
  });

  test('[local stand-in for Modal] a large file is written in chunks that each stay under the 64 KiB exec-argument limit', async () => {
    const modal = driver();
    const handle = await modal.start(handleFor());
    const environment = await modal.attach(handle);
    api.calls.length = 0;
    const content = 'ü'.repeat(150_000);
    await environment.workspace.writeFile('big.txt', content);
    expect((await environment.workspace.readFile('big.txt')).toString('utf8')).toBe(content);
    const sizes = api.calls.filter((call) => call.method === 'exec').map((call) => (call.args[1] as string[]).reduce((total, arg) => total + Buffer.byteLength(arg), 0));
    expect(sizes.length).toBeGreaterThan(5);
    expect(Math.max(...sizes)).toBeLessThan(64 * 1024);
    await modal.destroy(handle);
  });

  test('[local stand-in for Modal] a command past the 64 KiB exec-argument limit, though short enough for a kernel, is not started and says so', async () => {
    const modal = driver();
    const handle = await modal.start(handleFor());
    const environment = await modal.attach(handle);
    const result = await environment.exec({ command: `echo ${'x'.repeat(70_000)} | wc -c`, timeoutMs: 10_000 });
    expect(result).toMatchObject({ exitCode: 126, timedOut: false });
    expect(result.output).toMatch(/^The command was not started: .* at most 61440 in one argument\. Write the script to a file with write_file/);
    expect((await environment.exec({ command: `echo ${'x'.repeat(50_000)} | wc -c`, timeoutMs: 10_000 })).output.trim()).toBe('50001');
    await modal.destroy(handle);
  });

  describe('[local stand-in for Modal] shared sandbox behaviour', () => {
    sandboxBehaviourTests(() => ({ newDriver: driver, handle: handleFor() }));
  });
});

describe('Modal backend configuration', () => {
  test('without credentials the backend says which variables to set', async () => {
    const reason = await new ModalDriver(settings(), { env: {} }).unavailableReason();
    expect(reason).toBe('Modal credentials are missing: set MODAL_TOKEN_ID and MODAL_TOKEN_SECRET (or terminal.modal.token_id and terminal.modal.token_secret)');
  });

  test('credentials come from the config first, then MODAL_TOKEN_ID / MODAL_TOKEN_SECRET / MODAL_ENVIRONMENT', () => {
    expect(modalCredentials(settings(), { MODAL_TOKEN_ID: 'ak-1', MODAL_TOKEN_SECRET: 'as-1', MODAL_ENVIRONMENT: 'dev' })).toEqual({ tokenId: 'ak-1', tokenSecret: 'as-1', environment: 'dev' });
    expect(modalCredentials(settings({ token_id: 'cfg', token_secret: 'cfg-secret' }), { MODAL_TOKEN_ID: 'ak-1', MODAL_TOKEN_SECRET: 'as-1' })).toMatchObject({ tokenId: 'cfg', tokenSecret: 'cfg-secret' });
    expect(modalCredentials(settings(), { MODAL_TOKEN_ID: 'only-id' })).toBeUndefined();
  });
});

describeWithService('modal-credentials', ['MODAL_TOKEN_ID', 'MODAL_TOKEN_SECRET'], '[live Modal] Modal backend against the real service', (env) => {
  sandboxBehaviourTests(() => ({
    newDriver: () => new ModalDriver(settings({ workdir: '/workspace', app_name: 'hermes-temporal-tests', timeout_seconds: 900 }), { env, killGraceMs: 1000 }),
    handle: { backend: 'modal', cwd: '/workspace', sessionId: sessionId() },
  }));
});
