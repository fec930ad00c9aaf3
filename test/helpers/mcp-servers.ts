// The real MCP servers tests start: server-everything (stdio, or Streamable HTTP on 127.0.0.1),
// server-filesystem, and a misbehaving fixture server; each as an `mcp_servers:` entry.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { PartialConfig } from '../../src/config/schema';

const ROOT = path.resolve(__dirname, '../..');
const modulePath = (relative: string) => path.join(ROOT, 'node_modules', relative);
export const EVERYTHING_SERVER = modulePath('@modelcontextprotocol/server-everything/dist/index.js');
export const FILESYSTEM_SERVER = modulePath('@modelcontextprotocol/server-filesystem/dist/index.js');
export const MISBEHAVING_SERVER = path.join(ROOT, 'test/fixtures/mcp/misbehaving-server.mjs');

type ServerEntry = NonNullable<PartialConfig['mcp_servers']>[string];

export function everythingStdio(cwd: string, extra: Partial<ServerEntry> = {}): ServerEntry {
  return { command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'], cwd, ...extra };
}

export function filesystemStdio(root: string, extra: Partial<ServerEntry> = {}): ServerEntry {
  return { command: process.execPath, args: [FILESYSTEM_SERVER, root], cwd: root, ...extra };
}

export function misbehavingStdio(cwd: string, extra: Partial<ServerEntry> = {}): ServerEntry {
  return { command: process.execPath, args: [MISBEHAVING_SERVER], cwd, env: { MARKER_DIR: cwd }, ...extra };
}

export interface HttpServer {
  /** Streamable HTTP endpoint. */
  url: string;
  /** Legacy SSE endpoint (`transport: sse`). */
  sseUrl: string;
  process: ChildProcess;
  close(): void;
}

/** server-everything over Streamable HTTP and legacy SSE on 127.0.0.1 (a free port). */
export async function startEverythingHttp(): Promise<HttpServer> {
  const child = spawn(process.execPath, [path.join(ROOT, 'test/fixtures/mcp/everything-http.mjs'), '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('server-everything (HTTP) did not start within 30 s')), 30_000);
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening (\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.on('exit', (code) => reject(new Error(`server-everything (HTTP) exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}/mcp`, sseUrl: `http://127.0.0.1:${port}/sse`, process: child, close: () => child.kill('SIGKILL') };
}
