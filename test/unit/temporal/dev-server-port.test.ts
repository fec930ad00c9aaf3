// `dev` asks for fixed ports (7233, 8233). One already taken, by another Temporal server say, made
// the new server fail to bind while the readiness check took the other server's answer for its
// own: `dev` then served a worker on someone else's server. Taken ports are refused up front.
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { startDevServer } from '../../../src/temporal/dev-server';
import { tempDir } from '../../helpers/temp-dirs';

function listening(): Promise<{ server: Server; port: number }> {
  return new Promise((resolve) => {
    // Hangs up at once: whatever reaches it learns nothing (and waits for nothing).
    const server = createServer((socket) => socket.destroy());
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve({ server, port: typeof address === 'object' && address ? address.port : 0 });
    });
  });
}

/** A stand-in `temporal` that records that it ran, then fails as a server that cannot bind does. */
function fakeTemporal(): { path: string; ran: string } {
  const folder = tempDir('hermes-fake-temporal-');
  const ran = path.join(folder, 'ran');
  const file = path.join(folder, 'temporal');
  writeFileSync(file, `#!/bin/sh\ntouch '${ran}'\necho 'cannot bind its ports' >&2\nexit 1\n`);
  chmodSync(file, 0o755);
  return { path: file, ran };
}

test.each([
  ['gRPC', (port: number) => ({ port, uiPort: 0 }), '(--port or temporal.dev_server.port)'],
  ['Web UI', (port: number) => ({ port: 0, uiPort: port }), '(--ui-port or temporal.dev_server.ui_port)'],
])('a taken %s port is refused before any server starts, naming the setting', async (_name, ports, setting) => {
  const taken = await listening();
  const temporal = fakeTemporal();
  try {
    await expect(
      startDevServer({ cli: { kind: 'binary', path: temporal.path, source: 'configured' }, ...ports(taken.port), readyTimeoutMs: 5_000 }),
    ).rejects.toThrow(`Port ${taken.port} on 127.0.0.1 is taken by another program (another Temporal server?): stop it, or choose another port ${setting}`);
    expect(existsSync(temporal.ran)).toBe(false);
  } finally {
    taken.server.close();
  }
}, 20_000);
