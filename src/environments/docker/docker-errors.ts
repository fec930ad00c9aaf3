// Sorting dockerode failures: "cannot reach the daemon" and "no such container" before a command
// starts are retryable (BackendUnavailableError); everything else is a plain error.
import { BackendUnavailableError } from '../terminal-environment';

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ENOENT', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EACCES', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

interface DockerodeError {
  code?: unknown;
  statusCode?: unknown;
  message?: unknown;
}

function fields(error: unknown): DockerodeError {
  return typeof error === 'object' && error !== null ? error : {};
}

/** The daemon could not be reached at all (socket missing, refused, reset). */
export function isUnreachable(error: unknown): boolean {
  const { code } = fields(error);
  return typeof code === 'string' && CONNECTION_CODES.has(code);
}

export function isNotFound(error: unknown): boolean {
  return fields(error).statusCode === 404;
}

/** 409 from exec create: the container exists but is not running (stopped or paused). */
export function isNotRunning(error: unknown): boolean {
  const { statusCode } = fields(error);
  return statusCode === 409 || (statusCode === 500 && /not running/i.test(String(fields(error).message)));
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * For failures before a command started: unreachable daemon, vanished or stopped container
 * become a BackendUnavailableError (the activity retries and `attach` repairs the container).
 */
export function asUnavailable(error: unknown, what: string): unknown {
  if (isUnreachable(error) || isNotFound(error) || isNotRunning(error)) {
    return new BackendUnavailableError(`Docker backend unavailable while ${what}: ${errorMessage(error)}`);
  }
  return error;
}
