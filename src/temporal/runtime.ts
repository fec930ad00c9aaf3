// Routes the Temporal SDK's own logs into our logger (and quiets its info chatter). Must run
// before the first worker or native connection is created; later calls are no-ops.
import { Runtime, type LogLevel, type LogMetadata, type Logger as SdkLogger } from '@temporalio/worker';
import type { Logger } from '../logging';

let installed = false;

export function installTemporalRuntime(logger: Logger, level: LogLevel = 'WARN'): void {
  if (installed) return;
  installed = true;
  const order: LogLevel[] = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'];
  const enabled = (candidate: LogLevel) => order.indexOf(candidate) >= order.indexOf(level);
  const forward = (candidate: LogLevel, method: 'trace' | 'debug' | 'info' | 'warn' | 'error') =>
    (message: string, meta?: LogMetadata) => {
      if (enabled(candidate)) logger[method](meta ?? {}, message);
    };
  const sdkLogger: SdkLogger = {
    log: (candidate, message, meta) => forward(candidate, candidate.toLowerCase() as 'info')(message, meta),
    trace: forward('TRACE', 'trace'),
    debug: forward('DEBUG', 'debug'),
    info: forward('INFO', 'info'),
    warn: forward('WARN', 'warn'),
    error: forward('ERROR', 'error'),
  };
  try {
    Runtime.install({ logger: sdkLogger });
  } catch {
    // Already installed by the embedding application: keep theirs.
  }
}
