// How model API errors become Temporal failures: which ones are retried, how long to wait, and
// what the operator reads when a session fails on a model problem.
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import type { ApplicationFailure } from '@temporalio/common';
import OpenAI from 'openai';
import { MODEL_FAILURE, toModelFailure } from '../../../src/activities/model-failures';
import { startScriptedModelServer, type ScriptedModelServer } from '../../../src/model/scripted-model-server';

const BASE_URL = 'http://model.internal:8000/v1';

function apiError(status: number, headers: Record<string, string> = {}, message = 'upstream said no') {
  return OpenAI.APIError.generate(status, { error: { message } }, message, new Headers(headers));
}

const failureFor = (status: number, headers?: Record<string, string>) => toModelFailure(apiError(status, headers), BASE_URL);

describe('rate limits', () => {
  it.each<[headers: Record<string, string>, delay: number | undefined]>([
    [{ 'retry-after': '7' }, 7000],
    [{ 'retry-after': '0.5' }, 500],
    [{ 'retry-after-ms': '1500' }, 1500],
    [{ 'retry-after-ms': '250', 'retry-after': '9' }, 250],
    [{}, undefined],
    [{ 'retry-after': '0' }, undefined],
    [{ 'retry-after-ms': '0' }, undefined],
    [{ 'retry-after': 'soon' }, undefined],
  ])('a 429 with headers %j is retried after %p ms', (headers, delay) => {
    const failure = failureFor(429, headers);
    expect(failure.type).toBe(MODEL_FAILURE.rateLimit);
    expect(failure.nonRetryable).toBe(false);
    expect(failure.nextRetryDelay).toBe(delay);
  });
});

describe('server trouble is retried', () => {
  it.each([500, 502, 503, 504, 408, 409])('HTTP %d is a retryable server error', (status) => {
    const failure = failureFor(status);
    expect(failure.type).toBe(MODEL_FAILURE.server);
    expect(failure.nonRetryable).toBe(false);
    expect(failure.message).toContain(`HTTP ${status}`);
    expect(failure.message).toContain(BASE_URL);
  });
});

describe('client errors fail at once', () => {
  it.each([400, 404, 413, 422])('HTTP %d is a non-retryable bad request', (status) => {
    const failure = failureFor(status);
    expect(failure.type).toBe(MODEL_FAILURE.badRequest);
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toContain(`HTTP ${status} from ${BASE_URL}`);
    expect(failure.message).toContain('upstream said no');
  });

  it.each([401, 403])('HTTP %d is a non-retryable authentication failure that points at the API key', (status) => {
    const failure = failureFor(status);
    expect(failure.type).toBe(MODEL_FAILURE.authentication);
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toContain('OPENAI_API_KEY');
  });

  it('names api.openai.com when no base URL is configured', () => {
    expect(toModelFailure(apiError(400), undefined).message).toContain('from api.openai.com');
  });
});

describe('errors from the real client', () => {
  let server: ScriptedModelServer | undefined;

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function failureFromServer(fail: { status: number; retry_after_seconds?: number }): Promise<ApplicationFailure> {
    server = await startScriptedModelServer({ script: { turns: [{ content: 'x', always_fail: fail }] } });
    const client = new OpenAI({ baseURL: server.url, apiKey: 'x', maxRetries: 0 });
    try {
      await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'go' }] });
    } catch (error) {
      return toModelFailure(error, server.url);
    }
    throw new Error('expected the model call to fail');
  }

  it('turns a 429 with retry-after into a rate limit with that delay', async () => {
    const failure = await failureFromServer({ status: 429, retry_after_seconds: 2 });
    expect(failure).toMatchObject({ type: MODEL_FAILURE.rateLimit, nonRetryable: false, nextRetryDelay: 2000 });
  });

  it('turns a 503 into a retryable server error', async () => {
    expect(await failureFromServer({ status: 503 })).toMatchObject({ type: MODEL_FAILURE.server, nonRetryable: false });
  });

  it('turns a 401 into a non-retryable authentication failure', async () => {
    expect(await failureFromServer({ status: 401 })).toMatchObject({ type: MODEL_FAILURE.authentication, nonRetryable: true });
  });

  it('turns a 422 into a non-retryable bad request', async () => {
    expect(await failureFromServer({ status: 422 })).toMatchObject({ type: MODEL_FAILURE.badRequest, nonRetryable: true });
  });

  it('turns an unreachable server into a retryable network failure naming the URL', async () => {
    // A port that was just free and is now closed: nothing listens there.
    const port = await new Promise<number>((resolve) => {
      const probe = createServer();
      probe.listen(0, '127.0.0.1', () => {
        const address = probe.address() as { port: number };
        probe.close(() => resolve(address.port));
      });
    });
    const baseURL = `http://127.0.0.1:${port}/v1`;
    const client = new OpenAI({ baseURL, apiKey: 'x', maxRetries: 0, timeout: 10_000 });
    const error = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'go' }] }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(OpenAI.APIConnectionError);
    const failure = toModelFailure(error, baseURL);
    expect(failure.type).toBe(MODEL_FAILURE.network);
    expect(failure.nonRetryable).toBe(false);
    expect(failure.message).toContain(`Could not reach the model at ${baseURL}`);
  });

  it('fails at once, naming the URL, when an endpoint that never answered refuses the connection', async () => {
    const port = await closedPort();
    const baseURL = `http://127.0.0.1:${port}/v1`;
    const failure = toModelFailure(await connectionError(baseURL), baseURL, { unreachableIsFinal: true });
    expect(failure).toMatchObject({ type: MODEL_FAILURE.unreachable, nonRetryable: true });
    expect(failure.message).toMatch(new RegExp(`^Could not reach the model at ${baseURL.replace(/[.]/g, '\\.')} \\(connection refused\\)`));
  });

  it('fails at once on a host name that does not resolve', async () => {
    const baseURL = 'http://no-such-host.invalid/v1';
    const failure = toModelFailure(await connectionError(baseURL), baseURL, { unreachableIsFinal: true });
    expect(failure).toMatchObject({ type: MODEL_FAILURE.unreachable, nonRetryable: true });
    expect(failure.message).toContain('Could not reach the model at http://no-such-host.invalid/v1 (ENOTFOUND');
  });
});

async function closedPort(): Promise<number> {
  return new Promise<number>((resolve) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address() as { port: number };
      probe.close(() => resolve(address.port));
    });
  });
}

async function connectionError(baseURL: string): Promise<unknown> {
  const client = new OpenAI({ baseURL, apiKey: 'x', maxRetries: 0, timeout: 10_000 });
  return client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'go' }] }).then(
    () => undefined,
    (caught: unknown) => caught,
  );
}

describe('anything else', () => {
  it('is a retryable network failure carrying the original message', () => {
    const failure = toModelFailure(new TypeError('socket hang up'), BASE_URL);
    expect(failure).toMatchObject({ type: MODEL_FAILURE.network, nonRetryable: false });
    expect(failure.message).toBe(`Calling the model at ${BASE_URL} failed: socket hang up`);
    expect(toModelFailure('a string', BASE_URL).message).toBe(`Calling the model at ${BASE_URL} failed: a string`);
  });
});

describe('a reply body that is not JSON', () => {
  it('says the body was not JSON, once, without repeating a prefix', async () => {
    // A real server cutting its JSON reply short, as a broken proxy does.
    const server = createHttpServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"id":"x","choices":[{"message');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const baseURL = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
      const client = new OpenAI({ baseURL, apiKey: 'x', maxRetries: 0, timeout: 10_000 });
      const error = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'go' }] }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      const failure = toModelFailure(error, baseURL);
      expect(failure.type).toBe(MODEL_FAILURE.malformedResponse);
      expect(failure.nonRetryable).toBe(false);
      expect(failure.message).toMatch(new RegExp(`^The model at ${baseURL.replace(/[.]/g, '\\.')} replied with a body that is not valid JSON \\(.*JSON.*\\)$`));
      expect(failure.message).not.toMatch(/Model call failed/);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
