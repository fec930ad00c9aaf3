// Starts a real Temporal server (`temporal server start-dev`) on loopback, with the project's
// search attributes registered and, unless headless, the Web UI. The server runs in a process
// group of its own (a Ctrl+C or a `timeout` aimed at the caller's group does not stop it under a
// live session) behind a watchdog that stops it when the caller goes away, however it ended.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createServer } from 'node:net';
import { Connection } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { resolveTemporalCli, type TemporalCli } from './cli-binary';
import { trustedSearchPath } from '../environments/trusted-programs';
import { HERMES_SEARCH_ATTRIBUTES, SEARCH_ATTRIBUTE_KEYS } from './search-attributes';

/**
 * What keeps a session's turns quick (scripts/services/temporal-server/dynamic-config.yaml sets
 * the same on a cluster): activities a workflow task schedules start on its own worker without a
 * round trip through matching, and the history service reads its transfer queue as often as it
 * has work, where the default (20 reads a second) held every workflow task after an activity for
 * up to 50 ms (the "50 ms beat" under short activities, Temporal's own floor included).
 */
export const LATENCY_DYNAMIC_CONFIG = { 'system.enableActivityEagerExecution': true, 'history.transferProcessorMaxPollRPS': 1000 } as const;

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
  /** Folder for a `<pid>.json` file naming the server while it runs (found by other commands and tests). */
  pidDir?: string;
  /** Recorded in the pid file: `dev` for a server other commands may use, `embedded` for one a `run` owns. */
  kind?: 'dev' | 'embedded';
}

export interface DevServer {
  address: string;
  namespace: string;
  uiUrl?: string;
  stop(): Promise<void>;
  /** Kills the server at once, without waiting (for a process about to exit). */
  stopNow(): void;
}

/** Starts tried before a port taken under us is reported (see startDevServer). */
const PORT_ATTEMPTS = 3;

export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const cli = options.cli ?? resolveTemporalCli({ log: options.log });
  const ip = options.ip ?? '127.0.0.1';
  const namespace = options.namespace ?? 'default';
  // The server does not create its database's folder: a first `dev` on a fresh home failed there.
  if (options.dbFile) mkdirSync(path.dirname(options.dbFile), { recursive: true, mode: 0o700 });
  // A port asked for by number must be ours: the readiness check below would take whatever server
  // answers there (another Temporal server on 7233) for the one it started, which had failed.
  if (options.port) await refuseTakenPort(ip, options.port, '--port or temporal.dev_server.port');
  if (options.uiPort && !options.headless) await refuseTakenPort(ip, options.uiPort, '--ui-port or temporal.dev_server.ui_port');
  if (cli.kind === 'sdk-download') return startWithSdkDownload(ip, namespace, options);
  // A free port (ours, or one the CLI picks for its internal services) can be taken by another
  // process before the server binds it, e.g. a second server starting on this machine: try again.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startServerProcess(cli, ip, namespace, options);
    } catch (error) {
      if (attempt >= PORT_ATTEMPTS || !/address already in use/.test(String(error))) throw error;
      options.log?.(`${(error as Error).message.split('\n')[0]}; trying other ports`);
    }
  }
}

async function startServerProcess(
  cli: Extract<TemporalCli, { kind: 'binary' }>,
  ip: string,
  namespace: string,
  options: DevServerOptions,
): Promise<DevServer> {
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
    ...Object.entries({ ...LATENCY_DYNAMIC_CONFIG, ...options.dynamicConfig }).flatMap(([key, value]) => [
      '--dynamic-config-value',
      `${key}=${JSON.stringify(value)}`,
    ]),
  ];
  const child = spawn('/bin/sh', ['-c', WATCHDOG_SCRIPT, 'temporal-watchdog', options.pidDir ?? '', cli.path, ...args], {
    stdio: ['pipe', 'ignore', 'pipe'],
    detached: true,
    // The watchdog's own `rm` must not come from a relative PATH entry or a node_modules folder.
    env: { ...process.env, PATH: trustedSearchPath() },
  });
  // Our end of the watchdog's stdin: it closes when this process exits, even on SIGKILL.
  child.stdin?.on('error', () => undefined);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const address = `${ip}:${port}`;
  try {
    await waitUntilReady(address, child, options.readyTimeoutMs ?? 30_000, () => stderr);
  } catch (error) {
    killGroup(child, 'SIGKILL');
    child.stdin?.destroy();
    throw error;
  }
  const uiUrl = uiPort ? `http://${ip}:${uiPort}` : undefined;
  const pidFile = options.pidDir && child.pid ? path.join(options.pidDir, `${child.pid}.json`) : undefined;
  if (pidFile) {
    mkdirSync(path.dirname(pidFile), { recursive: true });
    const record: DevServerRecord = { pid: child.pid!, owner: process.pid, kind: options.kind ?? 'embedded', address, namespace, uiUrl };
    writeFileSync(pidFile, `${JSON.stringify(record)}\n`);
  }
  return {
    address,
    namespace,
    uiUrl,
    stop: async () => {
      await stopChild(child);
      if (pidFile) rmSync(pidFile, { force: true });
    },
    stopNow: () => {
      killGroup(child, 'SIGKILL');
      if (pidFile) rmSync(pidFile, { force: true });
    },
  };
}

/** What a pid file says about a running server; `pid` is also its process group. */
export interface DevServerRecord {
  pid: number;
  owner: number;
  kind: 'dev' | 'embedded';
  address: string;
  namespace: string;
  uiUrl?: string;
}

/**
 * Runs the server (the pid file's folder or '', then the server's command line follow) and stops
 * it when our stdin reaches end of file, which happens when the process that started us closes it
 * or dies; exits with the server's status.
 */
const WATCHDOG_SCRIPT = [
  'pid_dir=$1; shift',
  'exec 3<&0',
  '"$@" </dev/null &',
  'server=$!',
  '( while read -r _; do :; done <&3; kill -TERM "$server" 2>/dev/null ) &',
  'watcher=$!',
  'wait "$server"',
  'status=$?',
  'kill "$watcher" 2>/dev/null',
  // The pid file names this shell: it goes with the server, also when its owner was killed outright.
  '[ -n "$pid_dir" ] && rm -f "$pid_dir/$$.json"',
  'exit "$status"',
].join('\n');

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
  return { address: env.address, namespace, stop: () => env.teardown(), stopNow: () => void env.teardown().catch(() => undefined) };
}

async function waitUntilReady(address: string, child: ChildProcess, timeoutMs: number, stderr: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited: string | undefined;
  // 'close', not 'exit': only then has all of the server's stderr (its reason) been read.
  child.once('close', (code, signal) => {
    exited = `exited with ${code ?? signal}`;
  });
  while (Date.now() < deadline) {
    if (exited) throw new Error(`temporal server start-dev ${exited}: ${stderr().trim() || '(it printed nothing)'}`);
    try {
      // connect() asks the server for its system info within connectTimeout: a server that
      // answers is ready, and one that accepts but never answers costs one second, not forever.
      const connection = await Connection.connect({ address, connectTimeout: 1000 });
      await connection.close();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`Temporal dev server at ${address} was not ready within ${timeoutMs} ms: ${stderr().trim()}`);
}

/** Asks the watchdog to stop the server (graceful), then kills the whole group if it lingers. */
function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => killGroup(child, 'SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(force);
      // The watchdog waited for the server; anything left in the group goes with it.
      killGroup(child, 'SIGKILL');
      resolve();
    });
    child.stdin?.end();
  });
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid) process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

async function refuseTakenPort(ip: string, port: number, setting: string): Promise<void> {
  if (await portTaken(ip, port)) {
    throw new Error(`Port ${port} on ${ip} is taken by another program (another Temporal server?): stop it, or choose another port (${setting})`);
  }
}

/** Whether binding `ip:port` fails because something listens there (other failures are the server's to report). */
function portTaken(ip: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'EADDRINUSE'));
    server.listen(port, ip, () => server.close(() => resolve(false)));
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
