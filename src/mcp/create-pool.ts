// The worker's MCP pool as configured: stdio servers start in the local backend's sandbox.
import type { LoadedConfig } from '../config/load';
import { localSandbox } from '../environments/drivers';
import { SessionWorkspaces } from '../environments/session-workspaces';
import type { Logger } from '../logging';
import { McpConnectionPool } from './connection-pool';
import { openTransport, stderrTail } from './transports';

export function createMcpPool(config: LoadedConfig, logger: Logger, workspaces = new SessionWorkspaces()): McpConnectionPool {
  const sandbox = config.terminal.local.sandbox === 'on' ? localSandbox(config) : undefined;
  const outside = () => [config.session.cwd, ...workspaces.list()];
  return new McpConnectionPool((server) => openTransport(server, { sandbox, logger, workspaces: outside }), logger, Date.now, stderrTail);
}
