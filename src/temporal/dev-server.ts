// Starts a real Temporal server (`temporal server start-dev`) on loopback, with the project's
// search attributes registered and, unless headless, the Web UI.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { Connection } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { resolveTemporalCli, type TemporalCli } from './cli-binary';
import { HERMES_SEARCH_ATTRIBUTES, SEARCH_ATTRIBUTE_KEYS } from './search-attributes';

export interface DevServerOptions {
  cli?: TemporalCli;
  ip?: string;
  /** 0 picks a free port. */
  port?: number;
  /** 0 picks a free port; ignored when headless. */
  uiPort?: number;
  headless?: boolean;
  /** SQLite file; in-memory when unset. */
  dbFile?: string;
  namespace?: string;
  /** Register the project's search attributes at start (default true). */
  searchAttributes?: boolean;
  /** Extra `--dynamic-config-value KEY=VALUE` settings. */
  dynamicConfig?: Record<string, string | number | boolean>;
  readyTimeoutMs?: number;
  log?: (message: string) => void;
}

export interface DevServer {
  address: string;
  namespace: string;
  uiUrl?: string;
  stop(): Promise<void>;
}

export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const cli = options.cli ?? resolveTemporalCli({ log: options.log });
  const ip = options.ip ?? '127.0.0.1';
  const namespace = options.namespace ?? 'default';
  if (cli.kind === 'sdk-download') return startWithSdkDownload(ip, namespace, options);

  const port = options.port || (await freePort(ip));
  const uiPort = options.headless ? undefined : options.uiPort || (await freePort(ip));
  const args = [
    'server', 'start-dev',
    '--ip', ip,
    '--port', String(port),
    '--namespace', namespace,
    '--log-level', 'error',
    ...(uiPort ? ['--ui-port', String(uiPort), '--ui-disable-news-fetch'] : ['--headless']),
    ...(options.dbFile
      ? ['--db-filename', options.dbFile, '--sqlite-pragma', 'journal_mode=WAL', '--sqlite-pragma', 'synchronous=NORMAL']
      : []),
    ...(options.searchAttributes === false
      ? []
      : HERMES_SEARCH_ATTRIBUTES.flatMap(({ name, type }) => ['--search-attribute', `${name}=${type}`])),
    // Activities scheduled by a workflow task start on the same worker without a round trip.
    ...Object.entries({ 'system.enableActivityEagerExecution': true, ...options.dynamicConfig }).flatMap(([key, value]) => [
      '--dynamic-config-value',
      `${key}=${JSON.stringify(value)}`,
    ]),
  ];
  const child = spawn(cli.path, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const address = `${ip}:${port}`;
  try {
    await waitUntilReady(address, child, options.readyTimeoutMs ?? 30_000, () => stderr);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return {
    address,
    namespace,
    uiUrl: uiPort ? `http://${ip}:${uiPort}` : undefined,
    stop: () => stopChild(child),
  };
}

async function startWithSdkDownload(ip: string, namespace: string, options: DevServerOptions): Promise<DevServer> {
  options.log?.('No temporal CLI found; letting the Temporal SDK download one (needs internet access)');
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      ip,
      namespace,
      ui: !options.headless,
      ...(options.uiPort ? { uiPort: options.uiPort } : {}),
      ...(options.port ? { port: options.port } : {}),
      ...(options.dbFile ? { dbFilename: options.dbFile } : {}),
      searchAttributes: options.searchAttributes === false ? [] : [...SEARCH_ATTRIBUTE_KEYS],
    },
  });
  return { address: env.address, namespace, stop: () => env.teardown() };
}

async function waitUntilReady(address: string, child: ChildProcess, timeoutMs: number, stderr: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited: string | undefined;
  child.once('exit', (code, signal) => {
    exited = `exited with ${code ?? signal}`;
  });
  while (Date.now() < deadline) {
    if (exited) throw new Error(`temporal server start-dev ${exited}: ${stderr().trim()}`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1000 });
      try {
        await connection.workflowService.getSystemInfo({});
        return;
      } finally {
        await connection.close();
      }
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`Temporal dev server at ${address} was not ready within ${timeoutMs} ms: ${stderr().trim()}`);
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** A free TCP port on `ip`, found by binding port 0. */
export function freePort(ip = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, ip, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
