// Maps model API errors to Temporal failures: rate limits, timeouts and server errors are
// retried (honouring retry-after); other 4xx errors fail at once with a reason an operator can act on.
import { ApplicationFailure } from '@temporalio/common';
import OpenAI from 'openai';

export const MODEL_FAILURE = {
  rateLimit: 'Hermes.Model.RateLimit',
  server: 'Hermes.Model.ServerError',
  network: 'Hermes.Model.Network',
  authentication: 'Hermes.Model.Authentication',
  badRequest: 'Hermes.Model.BadRequest',
  emptyResponse: 'Hermes.Model.EmptyResponse',
  malformedResponse: 'Hermes.Model.MalformedResponse',
} as const;

const RETRYABLE_STATUS = new Set([408, 409, 429]);

export function toModelFailure(error: unknown, baseUrl: string | undefined): ApplicationFailure {
  const where = baseUrl ?? 'api.openai.com';
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
