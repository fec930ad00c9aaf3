// One place that builds the structured logger used by worker-side code (never by workflows).
// People at a terminal read short lines (pino-pretty: "WARN: <message>"); machines get pino's
// JSON, on stderr with `logging.format: json` or in `logging.file`.
import { createRequire } from 'node:module';
import pino from 'pino';
import type { DestinationStream, Logger } from 'pino';

export type { Logger };

export interface LoggerOptions {
  level?: string;
  name?: string;
  format?: 'pretty' | 'json';
  /** Also write JSON records to this file. */
  file?: string;
}

/** Logs go to stderr so that stdout stays clean for CLI output and `--json` events. */
export function createLogger(options: LoggerOptions = {}): Logger {
  const level = options.level ?? process.env.HERMES_LOG_LEVEL ?? 'info';
  const settings = { name: options.name ?? 'hermes-temporal', level };
  const console = options.format === 'json' ? pino.destination({ dest: 2, sync: true }) : prettyStream() ?? pino.destination({ dest: 2, sync: true });
  if (!options.file) return pino(settings, console);
  const file = pino.destination({ dest: options.file, mkdir: true, sync: true });
  return pino(settings, pino.multistream([{ stream: console, level: level as pino.Level }, { stream: file, level: level as pino.Level }]));
}

/**
 * pino-pretty as a synchronous stream in this thread (not a transport worker: a CLI that exits
 * right after a warning must not lose it): level and message, the fields after it.
 */
function prettyStream(): DestinationStream | undefined {
  let pretty: (options: Record<string, unknown>) => DestinationStream;
  try {
    // Loaded only when a logger is made: the CLI's quick commands never pay for it.
    pretty = (createRequire(__filename)('pino-pretty') as { default: typeof pretty }).default;
  } catch {
    return undefined; // An install without it still logs, as JSON.
  }
  return pretty({
    destination: 2,
    sync: true,
    colorize: Boolean(process.stderr.isTTY),
    ignore: 'pid,hostname,name,time',
    singleLine: true,
  });
}

/** The logger the configuration asks for (`logging.level`, `logging.format`, `logging.file`). */
export function createConfiguredLogger(config: { logging: { level: string; format: 'pretty' | 'json'; file?: string } }): Logger {
  return createLogger({ level: config.logging.level, format: config.logging.format, ...(config.logging.file ? { file: config.logging.file } : {}) });
}

/** A logger that drops everything; for tests and quiet CLI paths. */
export const silentLogger: Logger = pino({ level: 'silent' });
