// Stops the dev server started by the global setup.
import type { DevServer } from '../../src/temporal/dev-server';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { __hermesDevServer?: DevServer }).__hermesDevServer?.stop();
}
