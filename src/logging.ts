// One place that builds the structured logger used by worker-side code (never by workflows).
import pino from 'pino';
import type { Logger } from 'pino';

export type { Logger };

/** Logs go to stderr so that stdout stays clean for CLI output and `--json` events. */
export function createLogger(options: { level?: string; name?: string } = {}): Logger {
  return pino(
    { name: options.name ?? 'hermes-temporal', level: options.level ?? process.env.HERMES_LOG_LEVEL ?? 'info' },
    pino.destination(2),
  );
}

/** A logger that drops everything; for tests and quiet CLI paths. */
export const silentLogger: Logger = pino({ level: 'silent' });
