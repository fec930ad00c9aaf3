// Starting the embedded Temporal server: a failed start says why (the server's own words), and a
// port taken between picking it and binding it (another server starting on this machine) is
// picked again instead of failing the session.
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { resolveTemporalCli, type TemporalCli } from '../../src/temporal/cli-binary';
import { freePort, startDevServer } from '../../src/temporal/dev-server';

const realCli = resolveTemporalCli({});
let folder: string;
beforeEach(() => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'dev-server-start-'));
});
afterEach(() => rmSync(folder, { recursive: true, force: true }));

/** A `temporal` stand-in: runs `body` (sh) with the real CLI's path in $REAL. */
function wrappedCli(body: string): Extract<TemporalCli, { kind: 'binary' }> {
  if (realCli.kind !== 'binary') throw new Error('these tests need the temporal CLI (node dist/src/cli/main.js temporal-cli)');
  const script = path.join(folder, 'temporal');
  writeFileSync(script, `#!/bin/sh\nREAL='${realCli.path}'\n${body}\n`);
  chmodSync(script, 0o755);
  return { kind: 'binary', path: script, source: 'configured' };
}

/** Holds `port` until released, dropping the connections the readiness probes opened to it. */
async function holdPort(port: number): Promise<{ release(): void }> {
  const sockets = new Set<Socket>();
  const holder = createServer((socket) => sockets.add(socket));
  await new Promise<void>((resolve, reject) => {
    holder.once('error', reject);
    holder.listen(port, '127.0.0.1', resolve);
  });
  return {
    release: () => {
      holder.close();
      for (const socket of sockets) socket.destroy();
    },
  };
}

test('a port asked for that is taken fails the start at once, naming the port (no server answering there is taken for ours)', async () => {
  const port = await freePort();
  const holder = await holdPort(port);
  try {
    const logged: string[] = [];
    await expect(startDevServer({ cli: realCli, port, headless: true, log: (line) => logged.push(line) })).rejects.toThrow(
      `Port ${port} on 127.0.0.1 is taken by another program`,
    );
    expect(logged.filter((line) => /trying other ports/.test(line))).toHaveLength(0);
  } finally {
    holder.release();
  }
}, 60_000);

test('a server that dies at once reports what it printed, however quickly it exits', async () => {
  const cli = wrappedCli('echo "Error: the reason it stopped" >&2\nexit 1');
  for (let round = 0; round < 5; round++) {
    await expect(startDevServer({ cli, headless: true })).rejects.toThrow('temporal server start-dev exited with 1: Error: the reason it stopped');
  }
});

test('a port taken before the server binds it is picked again, and the server starts', async () => {
  const marker = path.join(folder, 'failed-once');
  // The first start finds its port taken, as when another server grabbed it a moment earlier.
  const cli = wrappedCli(
    `if [ ! -e '${marker}' ]; then touch '${marker}'; echo "Error: can't set frontend port: bind: address already in use" >&2; exit 1; fi\nexec "$REAL" "$@"`,
  );
  const logged: string[] = [];
  const server = await startDevServer({ cli, headless: true, log: (line) => logged.push(line) });
  try {
    expect(logged.join('\n')).toMatch(/address already in use; trying other ports/);
    expect(server.address).toMatch(/^127\.0\.0\.1:\d+$/);
  } finally {
    await server.stop();
  }
}, 60_000);

test('a database file in a folder that does not exist yet (a fresh home) is created there', async () => {
  const dbFile = path.join(folder, 'fresh-home', 'temporal.db');
  const server = await startDevServer({ cli: realCli, headless: true, dbFile });
  try {
    expect(existsSync(dbFile)).toBe(true);
  } finally {
    await server.stop();
  }
}, 60_000);
