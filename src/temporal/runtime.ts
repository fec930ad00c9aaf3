// Routes the Temporal SDK's own logs into our logger (and quiets its info chatter). Must run
// before the first worker or native connection is created; later calls are no-ops.
// `handleSignals: false` keeps the SDK off SIGINT/SIGTERM, for a process (`run`) that decides
// itself what a signal means: its worker must keep serving while the session cancels.
import { Runtime, type LogLevel, type LogMetadata, type Logger as SdkLogger } from '@temporalio/worker';
import type { Logger } from '../logging';

let installed = false;

export interface RuntimeSettings {
  level?: LogLevel;
  /** Let the SDK shut workers down on SIGINT/SIGTERM (default true). */
  handleSignals?: boolean;
}

export function installTemporalRuntime(logger: Logger, settings: RuntimeSettings = {}): void {
  const level = settings.level ?? 'WARN';
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
    Runtime.install({ logger: sdkLogger, ...(settings.handleSignals === false ? { shutdownSignals: [] } : {}) });
  } catch {
    // Already installed by the embedding application: keep theirs.
  }
}
