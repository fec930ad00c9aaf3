// Stops the dev server started by the global setup and removes its workflow bundle.
import { rmSync } from 'node:fs';
import type { DevServer } from '../../src/temporal/dev-server';

export default async function globalTeardown(): Promise<void> {
  const state = globalThis as { __hermesDevServer?: DevServer; __hermesBundleDir?: string };
  await state.__hermesDevServer?.stop();
  if (state.__hermesBundleDir) rmSync(state.__hermesBundleDir, { recursive: true, force: true });
}
