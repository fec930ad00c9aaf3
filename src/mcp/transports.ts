// Opens the transport a server's config names: Streamable HTTP (or legacy SSE) when it has a
// `url`, else stdio — a child process started inside the local sandbox unless `sandbox: false`.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { LocalSandbox } from '../environments/local-sandbox';
import { shellQuote } from '../environments/shell-quote';
import { refuseWorkspaceFiles, trustedProgram, trustedSearchPath } from '../environments/trusted-programs';
import { watchFolder, type FolderRemovals } from '../environments/folder-watch';
import { isDirectory } from '../environments/git-control';
import { findNestedRepositories } from '../environments/git-repositories';
import { followingHiddenConfigs, packageConfigBaseline } from '../environments/package-config-guard';
import { realOrSelf } from '../environments/path-within';
import { programFolders } from '../environments/sandbox-read-scope';
import type { Logger } from '../logging';
import { stdioEnvironment, type ResolvedServer } from './resolved-server';

export interface TransportOptions {
  /** The local backend's sandbox; stdio servers run in it unless their config says `sandbox: false`. */
  sandbox?: LocalSandbox;
  /** The folders sessions write, asked when a server starts: an unsandboxed server's program or script may not lie in one. */
  workspaces?: () => readonly string[];
  logger: Logger;
}

const STDERR_TAIL_CHARS = 500;
const stderrTails = new WeakMap<Transport, () => string>();
const folderChecks = new WeakMap<Transport, () => FolderRemovals>();

/** The last lines a stdio server wrote to stderr: why it would not start, usually. */
export function stderrTail(transport: Transport): string {
  return stderrTails.get(transport)?.().trim() ?? '';
}

export function openTransport(server: ResolvedServer, options: TransportOptions): Transport {
  const { config } = server;
  if (config.url) {
    if (config.command) options.logger.warn({ server: server.name }, `MCP server '${server.name}' has both url and command: using url`);
    const requestInit = { headers: config.headers };
    return config.transport === 'sse'
      ? new SSEClientTransport(new URL(config.url), { requestInit })
      : new StreamableHTTPClientTransport(new URL(config.url), { requestInit });
  }
  const command = config.command as string;
  const cwd = config.cwd ?? process.cwd();
  let env = stdioEnvironment(config.env);
  let file: string;
  let args = config.args;
  let settle: (() => FolderRemovals) | undefined;
  if (config.sandbox && options.sandbox) {
    // The sandbox starts `bash -c script`: exec keeps the server the process whose pipes we hold.
    const script = `exec ${[command, ...config.args].map(shellQuote).join(' ')}`;
    // The server writes its folder at the model's request for as long as it lives: the
    // repositories there now stay read-only to it, and what it leaves is checked after each call.
    const folder = realOrSelf(cwd);
    const nestedAtStart = isDirectory(folder) ? { ...findNestedRepositories(folder), since: Date.now() } : undefined;
    const nested = nestedAtStart?.workTrees ?? [];
    const wrapped = options.sandbox.command(script, {
      workspace: cwd,
      cwd,
      sessionKey: `mcp-${server.name}`,
      nestedRepositories: nested,
      ...(env.PATH !== undefined ? { path: env.PATH } : {}),
      // The server's own program and script are the user's choice: the sandbox shows their folders.
      readPaths: programFolders([command, ...config.args]),
    });
    if (options.sandbox.state().active && isDirectory(folder)) {
      // The sandbox keeps the top folder's package configs that exist now unwritable to the server:
      // a change to one of them is the user's. Any other that appears or changes, in any
      // subfolder, is judged after each call (an MCP call is no command's hot path).
      const opened = packageConfigBaseline(folder);
      // So is a repository it makes in a subfolder: git would obey it wherever the user runs it.
      settle = watchFolder(folder, nested, { packageConfigs: () => followingHiddenConfigs(opened), everywhere: true, ...(nestedAtStart ? { nestedAtStart } : {}) });
    }
    file = wrapped.file;
    args = wrapped.args;
  } else {
    // Unsandboxed, the server and what it looks up come from the trusted PATH (unless its own
    // `env` names a PATH), never from its cwd's node_modules/.bin.
    const lookup = { outside: [cwd] };
    // It runs with the worker's rights: code the agent can rewrite is not started that way.
    refuseWorkspaceFiles([command, ...config.args], { outside: options.workspaces?.() ?? [] }, cwd, `MCP server '${server.name}'`);
    file = trustedProgram(command, lookup);
    if (config.env.PATH === undefined) env = { ...env, PATH: trustedSearchPath(lookup) };
  }
  const transport = new StdioClientTransport({ command: file, args, env, cwd, stderr: 'pipe' });
  // A server's stderr is its log: kept at debug level, never shown to the model; its tail
  // explains a server that would not start.
  let tail = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    const text = chunk.toString();
    tail = (tail + text).slice(-STDERR_TAIL_CHARS);
    options.logger.debug({ server: server.name, stderr: text.slice(0, 2000) }, 'MCP server stderr');
  });
  stderrTails.set(transport, () => tail);
  if (settle) folderChecks.set(transport, settle);
  return transport;
}

/**
 * Disarms what a sandboxed stdio server left in its folder that git, npm or yarn would run outside
 * the sandbox (folder-watch.ts): call after each of its calls. Nothing for other transports.
 */
export function checkServerFolder(transport: Transport | undefined): FolderRemovals | undefined {
  return transport ? folderChecks.get(transport)?.() : undefined;
}
