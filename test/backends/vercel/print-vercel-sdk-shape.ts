// Run by vercel-sdk.test.ts in a plain Node process (`node --import tsx`), the way a worker loads
// the SDK: @vercel/sandbox require()s ES modules, which Node 20 does and Jest's loader does not.
// Prints which of the members VercelSdkApi calls are there; the typecheck of this file fails when
// VercelSdkApi's description of the SDK (VercelModule) drifts from the SDK's own types.
import type * as RealVercel from '@vercel/sandbox';
import { loadOptionalSdk, VERCEL_SDK } from '../../../src/environments/optional-sdk';
import type { VercelModule } from '../../../src/environments/vercel/vercel-sdk-api';

void loadOptionalSdk<typeof RealVercel>(VERCEL_SDK).then((sdk) => {
  const described: VercelModule = sdk;
  const callable = (value: unknown): boolean => typeof value === 'function';
  const prototypeOf = (target: { prototype: object }): Record<string, unknown> => target.prototype as Record<string, unknown>;
  const shape = {
    'Sandbox.create': typeof described.Sandbox.create === 'function',
    'Sandbox.get': typeof described.Sandbox.get === 'function',
    ...Object.fromEntries(['runCommand', 'stop', 'delete'].map((name) => [`Sandbox#${name}`, callable(prototypeOf(sdk.Sandbox)[name])])),
    ...Object.fromEntries(['logs', 'wait', 'kill'].map((name) => [`Command#${name}`, callable(prototypeOf(sdk.Command)[name])])),
    'APIError is an Error': described.APIError.prototype instanceof Error,
  };
  process.stdout.write(JSON.stringify(shape));
});
