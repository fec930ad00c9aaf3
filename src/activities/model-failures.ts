// Maps model API errors to Temporal failures: rate limits, timeouts and server errors are
// retried (honouring retry-after); other 4xx errors fail at once with a reason an operator can act on.
import { ApplicationFailure } from '@temporalio/common';
import OpenAI from 'openai';

export const MODEL_FAILURE = {
  rateLimit: 'Hermes.Model.RateLimit',
  server: 'Hermes.Model.ServerError',
  network: 'Hermes.Model.Network',
  unreachable: 'Hermes.Model.Unreachable',
  authentication: 'Hermes.Model.Authentication',
  badRequest: 'Hermes.Model.BadRequest',
  emptyResponse: 'Hermes.Model.EmptyResponse',
  malformedResponse: 'Hermes.Model.MalformedResponse',
  /** A reply with more tool calls than one turn can schedule. */
  replyTooLarge: 'Hermes.Model.ReplyTooLarge',
} as const;

const RETRYABLE_STATUS = new Set([408, 409, 429]);

export interface ModelFailureContext {
  /**
   * Nothing has ever answered at this endpoint and retrying it was not asked for: a refused
   * connection or a host that does not resolve is then a wrong URL or a server not running,
   * which backing off for minutes would only hide.
   */
  unreachableIsFinal?: boolean;
}

/** Socket errors that mean nothing listens there, or no such host. */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

export function toModelFailure(error: unknown, baseUrl: string | undefined, context: ModelFailureContext = {}): ApplicationFailure {
  const where = baseUrl ?? 'api.openai.com';
  const unreachable = error instanceof OpenAI.APIConnectionError ? unreachableCode(error) : undefined;
  if (unreachable && context.unreachableIsFinal) {
    return ApplicationFailure.create({
      message:
        `Could not reach the model at ${where} (${describeUnreachable(unreachable)}). ` +
        'Check OPENAI_BASE_URL (model.base_url) and that the server runs; model.retry_unreachable keeps retrying instead.',
      type: MODEL_FAILURE.unreachable,
      nonRetryable: true,
      cause: error as Error,
    });
  }
  if (error instanceof OpenAI.APIConnectionError) {
    return ApplicationFailure.create({
      message: `Could not reach the model at ${where}: ${error.message}`,
      type: MODEL_FAILURE.network,
      cause: error,
    });
  }
  if (error instanceof OpenAI.APIError && typeof error.status === 'number') {
    const status = error.status;
    const detail = `Model API returned HTTP ${status} from ${where}: ${error.message}`;
    if (status === 429) {
      return ApplicationFailure.create({
        message: detail,
        type: MODEL_FAILURE.rateLimit,
        nextRetryDelay: retryAfterMs(error.headers as Headers | undefined),
        cause: error,
      });
    }
    if (status >= 500 || RETRYABLE_STATUS.has(status)) {
      return ApplicationFailure.create({ message: detail, type: MODEL_FAILURE.server, cause: error });
    }
    const type = status === 401 || status === 403 ? MODEL_FAILURE.authentication : MODEL_FAILURE.badRequest;
    const hint = type === MODEL_FAILURE.authentication ? ' Check OPENAI_API_KEY (model.api_key) on the worker.' : '';
    return ApplicationFailure.create({ message: detail + hint, type, nonRetryable: true, cause: error });
  }
  const err = isErrorLike(error) ? error : new Error(String(error));
  // The client parses the reply body itself: a SyntaxError means the body was not JSON (a proxy's
  // error page, a truncated reply). It may be transient, so it is retried like a network fault.
  // (By name: the error may come from another realm, where instanceof fails.)
  if (err.name === 'SyntaxError') {
    return ApplicationFailure.create({
      message: `The model at ${where} replied with a body that is not valid JSON (${err.message})`,
      type: MODEL_FAILURE.malformedResponse,
      cause: err,
    });
  }
  // The workflow prefixes "Model call failed: ", so the message names only what went wrong.
  return ApplicationFailure.create({ message: `Calling the model at ${where} failed: ${err.message}`, type: MODEL_FAILURE.network, cause: err });
}

function describeUnreachable(code: string): string {
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'bad port') return 'a port that fetch refuses to use';
  return `${code}: host not found or not reachable`;
}

/** The socket error code somewhere in the error's cause chain, if it is one of UNREACHABLE_CODES. */
function unreachableCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 6; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && UNREACHABLE_CODES.has(code)) return code;
    // fetch refuses a few well-known ports (9, 25, 6000, ...) before connecting.
    if ((current as { message?: unknown }).message === 'bad port') return 'bad port';
    const errors = (current as { errors?: unknown }).errors;
    if (Array.isArray(errors)) {
      const found = errors.map(unreachableCode).find(Boolean);
      if (found) return found;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The server's requested delay, if it gave a positive one (otherwise the retry policy decides). */
function retryAfterMs(headers: Headers | undefined): number | undefined {
  const milliseconds = Number(headers?.get('retry-after-ms') ?? NaN);
  if (milliseconds > 0) return milliseconds;
  const seconds = Number(headers?.get('retry-after') ?? NaN);
  return seconds > 0 ? seconds * 1000 : undefined;
}

/** An Error, also one from another realm (the client's JSON parse), where instanceof fails. */
function isErrorLike(value: unknown): value is Error {
  return value instanceof Error || (typeof value === 'object' && value !== null && typeof (value as Error).message === 'string' && typeof (value as Error).name === 'string');
}
