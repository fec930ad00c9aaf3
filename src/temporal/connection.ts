// Connects to Temporal the way the configuration says: an existing server (TEMPORAL_ADDRESS),
// whose search attributes are checked and registered if missing, or an embedded dev server.
// The SDK modules load inside the functions: a command that only parses its arguments (or fails
// on them) should not pay the half second @temporalio/client and the worker take to load.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import type { LoadedConfig } from '../config/load';
import type { DevServer, DevServerRecord } from './dev-server';

export interface TemporalConnection {
  address: string;
  namespace: string;
  client: Client;
  nativeConnection: NativeConnection;
  /** Web UI base URL, when known. */
  uiUrl?: string;
  /** True when this process started the server (it dies with the process). */
  embedded: boolean;
  close(): Promise<void>;
  /** Kills an embedded server at once (for a process about to exit); nothing for a remote one. */
  abandon(): void;
}

export interface ConnectOptions {
  /** Start a dev server when no address is configured (default true). */
  allowEmbedded?: boolean;
  /** Dev-server settings when embedding; defaults: in-memory, free ports, Web UI on. */
  devServer?: { port?: number; uiPort?: number; dbFile?: string; headless?: boolean };
  log?: (message: string) => void;
  /** Recorded in the embedded server's pid file: `dev` when other commands may use it. */
  devServerKind?: 'dev' | 'embedded';
  /** How long to wait for an existing server to answer (the SDK's default is 10 s). */
  connectTimeoutMs?: number;
}

export async function connectTemporal(config: LoadedConfig, options: ConnectOptions = {}): Promise<TemporalConnection> {
  const namespace = config.temporal.namespace;
  let server: DevServer | undefined;
  let address = config.temporal.address;
  let uiUrl = config.temporal.ui_url;
  if (!address) {
    if (options.allowEmbedded === false) {
      throw new Error(NO_SERVER_MESSAGE);
    }
    const [{ startDevServer }, { resolveTemporalCli }] = await Promise.all([import('./dev-server'), import('./cli-binary')]);
    server = await startDevServer({
      cli: resolveTemporalCli({ configuredPath: config.temporal.cli_path, log: options.log, outside: [config.session.cwd] }),
      ip: config.temporal.dev_server.ip,
      namespace,
      ...options.devServer,
      log: options.log,
      pidDir: serverPidDir(config.home),
      kind: options.devServerKind ?? 'embedded',
    });
    address = server.address;
    uiUrl = server.uiUrl;
  }

  const [{ Client, Connection }, { NativeConnection }, { ensureSearchAttributes }] = await Promise.all([
    import('@temporalio/client'),
    import('@temporalio/worker'),
    import('./search-attribute-registration'),
  ]);
  const connection = await Connection.connect({ address, ...(options.connectTimeoutMs ? { connectTimeout: options.connectTimeoutMs } : {}) }).catch(async (error: unknown) => {
    await server?.stop();
    throw new Error(`Cannot reach the Temporal server at ${address}${server ? '' : ' (TEMPORAL_ADDRESS)'}: ${firstLine(error)}`);
  });
  try {
    if (!server) await ensureSearchAttributes(connection, namespace);
    const nativeConnection = await NativeConnection.connect({ address });
    return {
      address,
      namespace,
      client: new Client({ connection, namespace }),
      nativeConnection,
      uiUrl,
      embedded: Boolean(server),
      close: async () => {
        await nativeConnection.close();
        await connection.close();
        await server?.stop();
      },
      abandon: () => server?.stopNow(),
    };
  } catch (error) {
    await connection.close();
    await server?.stop();
    throw error;
  }
}

export const NO_SERVER_MESSAGE =
  'No Temporal server configured and no `hermes-temporal dev` running: set TEMPORAL_ADDRESS (or temporal.address), or start `hermes-temporal dev` in another terminal';

/**
 * A `hermes-temporal dev` server running with this home folder (its pid file names it), so that
 * commands find it without TEMPORAL_ADDRESS.
 */
export function findRunningDevServer(home: string): DevServerRecord | undefined {
  const dir = serverPidDir(home);
  let files: string[];
  try {
    files = readdirSync(dir).filter((file) => file.endsWith('.json'));
  } catch {
    return undefined;
  }
  for (const file of files) {
    try {
      const record = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as DevServerRecord;
      if (record.kind === 'dev' && processExists(record.owner) && processExists(record.pid)) return record;
    } catch {
      // A file being written or removed: not a server to use.
    }
  }
  return undefined;
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
}

/** Where embedded and `dev` servers leave a pid file while they run. */
export function serverPidDir(home: string): string {
  return path.join(home, 'servers');
}

export interface TemporalClientConnection {
  address: string;
  namespace: string;
  client: Client;
  close(): Promise<void>;
}

/**
 * A client only, for CLI commands that read or signal: no native (worker) connection, whose
 * runtime would take over SIGINT/SIGTERM, and a bounded wait for an unreachable server.
 */
export async function connectTemporalClient(config: LoadedConfig, options: { connectTimeoutMs?: number } = {}): Promise<TemporalClientConnection> {
  const address = config.temporal.address || findRunningDevServer(config.home)?.address;
  if (!address) throw new Error(NO_SERVER_MESSAGE);
  const timeoutMs = options.connectTimeoutMs ?? 10_000;
  const { Client, Connection } = await import('@temporalio/client');
  const connection = await Connection.connect({ address, connectTimeout: timeoutMs }).catch((error: unknown) => {
    throw new Error(`Cannot reach the Temporal server at ${address} within ${Math.round(timeoutMs / 1000)} s: ${firstLine(error)}`);
  });
  return { address, namespace: config.temporal.namespace, client: new Client({ connection, namespace: config.temporal.namespace }), close: () => connection.close() };
}

/** Link to a workflow in the Web UI. */
export function workflowUiUrl(uiUrl: string | undefined, namespace: string, workflowId: string): string | undefined {
  return uiUrl ? `${uiUrl.replace(/\/+$/, '')}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}` : undefined;
}
