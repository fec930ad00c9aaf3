// The Vercel Sandbox backend through its SDK seam, with a local stand-in behind it: named
// sandboxes are folders on this machine and every command really runs there. Live tests against
// Vercel run only with VERCEL_TOKEN, VERCEL_TEAM_ID and VERCEL_PROJECT_ID.
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { configSchema } from '../../../src/config/schema';
import type { EnvironmentHandle } from '../../../src/environments/terminal-environment';
import { VercelDriver, vercelCredentials, type VercelSettings } from '../../../src/environments/vercel/vercel-driver';
import { sandboxBehaviourTests } from '../../helpers/sandbox-backend-suite';
import { describeWithService } from '../../helpers/services';
import { LocalVercelStandIn } from './local-vercel-stand-in';

const settings = (overrides: Partial<VercelSettings> = {}): VercelSettings => ({ ...configSchema.parse({}).terminal.vercel_sandbox, ...overrides });
let counter = 0;
const sessionId = () => `v${process.pid}x${Date.now().toString(36)}x${(counter += 1)}`;

describe('[local stand-in for Vercel] Vercel Sandbox backend', () => {
  const api = new LocalVercelStandIn();
  let workdir: string;

  beforeAll(() => {
    workdir = path.join(realpathSync(mkdtempSync(path.join(os.tmpdir(), 'hermes-vercel-'))), 'sandbox');
    mkdirSync(workdir);
  });

  afterAll(() => {
    api.terminateAll();
    rmSync(path.dirname(workdir), { recursive: true, force: true });
  });

  const handleFor = (id = sessionId()): EnvironmentHandle => ({ backend: 'vercel_sandbox', cwd: workdir, sessionId: id });
  const driver = (overrides: Partial<VercelSettings> = {}) => new VercelDriver(settings({ workdir, ...overrides }), { api, killGraceMs: 500 });

  test('[local stand-in for Vercel] one named sandbox per session: the name is the id; a stopped one resumes, a failed one is replaced; removed at the end', async () => {
    const id = sessionId();
    const first = await driver({ image: 'vercel/sandbox/node:24' }).start(handleFor(id));
    expect(first.id).toBe(`hermes-${id}`);
    expect(api.methods().slice(0, 2)).toEqual(['find', 'create']);
    expect(api.calls.find((call) => call.method === 'create')?.args[0]).toEqual({ name: `hermes-${id}`, timeoutMs: 1_800_000, image: 'vercel/sandbox/node:24' });

    api.stop(first.id!);
    api.calls.length = 0;
    const again = await driver().start(first);
    expect(again.id).toBe(first.id);
    expect(api.methods()).toEqual(['find']);
    expect((await (await driver().attach(again)).exec({ command: 'echo resumed', timeoutMs: 10_000 })).output).toBe('resumed\n');

    api.sandboxes.get(first.id!)!.status = 'failed';
    api.calls.length = 0;
    await driver().start(first);
    expect(api.methods()).toEqual(['find', 'remove', 'create']);

    api.calls.length = 0;
    await driver().destroy(first);
    expect(api.methods()).toEqual(['remove']);
    expect(api.sandboxes.has(first.id!)).toBe(false);
  });

  test('[local stand-in for Vercel] commands run as `bash -c <script>` with variables passed as the command env', async () => {
    const vercel = driver();
    const handle = await vercel.start(handleFor());
    api.calls.length = 0;
    const result = await (await vercel.attach(handle)).exec({ command: 'echo "$GREETING"', env: { GREETING: 'hello, vercel' }, timeoutMs: 10_000 });
    expect(result.output).toBe('hello, vercel\n');
    const [call] = api.calls;
    expect(call?.method).toBe('runCommand');
    expect(call?.args.slice(0, 2)).toEqual([handle.id, 'bash']);
    expect((call?.args[2] as string[])[0]).toBe('-c');
    await vercel.destroy(handle);
  });

  describe('[local stand-in for Vercel] shared sandbox behaviour', () => {
    sandboxBehaviourTests(() => ({ newDriver: () => driver(), handle: handleFor() }));
  });
});

describe('Vercel Sandbox backend configuration', () => {
  test('without credentials the backend names each missing variable', async () => {
    expect(await new VercelDriver(settings(), { env: { VERCEL_TOKEN: 't' } }).unavailableReason()).toBe(
      'Vercel Sandbox credentials are missing: set VERCEL_TEAM_ID (terminal.vercel_sandbox.team_id), VERCEL_PROJECT_ID (terminal.vercel_sandbox.project_id)',
    );
  });

  test('token, team and project come from the config first, then VERCEL_*; all three or none', () => {
    const env = { VERCEL_TOKEN: 'vt', VERCEL_TEAM_ID: 'team_1', VERCEL_PROJECT_ID: 'prj_1' };
    expect(vercelCredentials(settings(), env)).toEqual({ token: 'vt', teamId: 'team_1', projectId: 'prj_1' });
    expect(vercelCredentials(settings({ team_id: 'team_cfg' }), env)).toEqual({ token: 'vt', teamId: 'team_cfg', projectId: 'prj_1' });
    expect(vercelCredentials(settings(), { VERCEL_TOKEN: 'vt' })).toBeUndefined();
  });
});

describeWithService('vercel-credentials', ['VERCEL_TOKEN', 'VERCEL_TEAM_ID', 'VERCEL_PROJECT_ID'], '[live Vercel] Vercel Sandbox backend against the real service', (env) => {
  sandboxBehaviourTests(() => ({
    newDriver: () => new VercelDriver(settings({ timeout_seconds: 900 }), { env, killGraceMs: 1000 }),
    handle: { backend: 'vercel_sandbox', cwd: '/vercel/sandbox', sessionId: sessionId() },
  }));
});
