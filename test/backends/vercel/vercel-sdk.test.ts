// The real `@vercel/sandbox` behind the seam VercelSdkApi uses: installed at the tested version (an
// optional install; .ci/run adds it) and loaded through loadOptionalSdk in a plain Node process
// with what VercelSdkApi calls (print-vercel-sdk-shape.ts, whose typecheck guards the description).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { optionalSdkStatus, VERCEL_SDK } from '../../../src/environments/optional-sdk';

const repoRoot = path.resolve(__dirname, '../../..');

test('the @vercel/sandbox package is installed at the version the backend is tested with', () => {
  expect(optionalSdkStatus(VERCEL_SDK)).toEqual({ sdk: VERCEL_SDK, installedVersion: VERCEL_SDK.version });
});

test('the @vercel/sandbox package loads through the optional-SDK seam in Node with what VercelSdkApi calls', () => {
  // The SDK has no base-URL option, so nothing here reaches a server: the shape is what is checked.
  const run = spawnSync(process.execPath, ['--import', 'tsx', path.join(__dirname, 'print-vercel-sdk-shape.ts')], {
    cwd: repoRoot,
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  const shape = JSON.parse(run.stdout) as Record<string, boolean>;
  expect(Object.entries(shape).filter(([, present]) => !present)).toEqual([]);
  expect(Object.keys(shape)).toEqual([
    'Sandbox.create',
    'Sandbox.get',
    'Sandbox#runCommand',
    'Sandbox#stop',
    'Sandbox#delete',
    'Command#logs',
    'Command#wait',
    'Command#kill',
    'APIError is an Error',
  ]);
});
