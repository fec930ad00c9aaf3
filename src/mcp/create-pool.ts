// The worker's MCP pool as configured: stdio servers start in the local backend's sandbox.
import type { LoadedConfig } from '../config/load';
import { localSandbox } from '../environments/drivers';
import type { Logger } from '../logging';
import { McpConnectionPool } from './connection-pool';
import { openTransport, stderrTail } from './transports';

export function createMcpPool(config: LoadedConfig, logger: Logger): McpConnectionPool {
  const sandbox = config.terminal.local.sandbox === 'on' ? localSandbox(config) : undefined;
  return new McpConnectionPool((server) => openTransport(server, { sandbox, logger, workspace: config.session.cwd }), logger, Date.now, stderrTail);
}
