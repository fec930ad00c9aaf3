// An OpenAI-compatible chat-completions server that replays a script. It stands in for a model
// in tests and in the demo when no API key is set; clients talk real HTTP to it.
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseModelScript, turnsForTask, type ModelScript, type ModelScriptInput, type ScriptedTurn } from './model-script';

export interface RecordedRequest {
  model: string;
  messages: { role: string; content?: unknown; tool_calls?: unknown[]; tool_call_id?: string }[];
  tools?: { function: { name: string; description: string } }[];
  turn: number;
  receivedAt: number;
}

export interface ScriptedModelServer {
  /** Base URL for an OpenAI client (ends in /v1). */
  url: string;
  port: number;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 50 * 1024 * 1024;

export async function startScriptedModelServer(options: {
  script: ModelScript | ModelScriptInput;
  host?: string;
  port?: number;
}): Promise<ScriptedModelServer> {
  const script = parseModelScript(options.script);
  const host = options.host ?? '127.0.0.1';
  const requests: RecordedRequest[] = [];
  const failuresServed = new Map<string, number>();

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => sendError(response, 500, (error as Error).message));
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = request.url ?? '';
    if (request.method === 'GET' && /\/models$/.test(url)) {
      return sendJson(response, 200, { object: 'list', data: [{ id: 'scripted', object: 'model', owned_by: 'hermes-temporal' }] });
    }
    if (request.method !== 'POST' || !/\/chat\/completions$/.test(url)) return sendError(response, 404, `No route for ${request.method} ${url}`);
    const body = JSON.parse(await readBody(request)) as Omit<RecordedRequest, 'turn' | 'receivedAt'>;
    const turnIndex = body.messages.filter((message) => message.role === 'assistant').length;
    requests.push({ ...body, turn: turnIndex, receivedAt: Date.now() });
    const firstUser = body.messages.find((message) => message.role === 'user');
    const turn = turnsForTask(script, typeof firstUser?.content === 'string' ? firstUser.content : '')[turnIndex];
    if (!turn) return sendJson(response, 200, completion(body.model, { content: '(scripted model: the script has no more turns)' }, turnIndex));

    const key = `${conversationKey(body.messages)}:${turnIndex}`;
    const served = failuresServed.get(key) ?? 0;
    const failure = turn.always_fail ?? turn.fail_first?.[served];
    if (failure) {
      failuresServed.set(key, served + 1);
      const headers = failure.retry_after_seconds !== undefined ? { 'retry-after': String(failure.retry_after_seconds) } : undefined;
      return sendError(response, failure.status, failure.message, headers);
    }
    if (turn.delay_ms) await new Promise((resolve) => setTimeout(resolve, turn.delay_ms));
    sendJson(response, 200, completion(body.model, turn, turnIndex, body.messages));
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host}:${port}/v1`,
    port,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function completion(model: string, turn: ScriptedTurn, turnIndex: number, messages: RecordedRequest['messages'] = []) {
  const toolCalls = (turn.tool_calls ?? []).map((call, index) => ({
    id: call.id ?? `call_${turnIndex}_${index}`,
    type: 'function',
    function: {
      name: call.name,
      arguments: fillFromResults(typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments), messages),
    },
  }));
  return {
    id: `chatcmpl-scripted-${turnIndex}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: turn.content == null ? null : fillFromResults(turn.content, messages), ...(toolCalls.length ? { tool_calls: toolCalls } : {}) },
        finish_reason: toolCalls.length ? 'tool_calls' : 'stop',
      },
    ],
    // Roughly four characters a token, so token accounting has something to count.
    usage: usageOf(messages, turn),
  };
}

function usageOf(messages: RecordedRequest['messages'], turn: ScriptedTurn) {
  const promptTokens = Math.ceil(JSON.stringify(messages).length / 4);
  const completionTokens = Math.ceil(((turn.content ?? '').length + JSON.stringify(turn.tool_calls ?? []).length) / 4);
  return { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
}

/**
 * Scripts may refer to values only known at run time: `{{last.session_id}}` becomes the
 * `session_id` of the most recent tool result (a JSON object) that has one.
 */
function fillFromResults(argumentsText: string, messages: RecordedRequest['messages']): string {
  return argumentsText.replace(/\{\{last\.([A-Za-z0-9_]+)\}\}/g, (placeholder, field: string) => {
    for (const message of [...messages].reverse()) {
      if (message.role !== 'tool' || typeof message.content !== 'string') continue;
      try {
        const value = (JSON.parse(message.content) as Record<string, unknown>)[field];
        if (value !== undefined) return typeof value === 'string' ? value : JSON.stringify(value);
      } catch {
        // not JSON: look further back
      }
    }
    return placeholder;
  });
}

/** Identifies a conversation by its opening messages, so failure counters are per session. */
function conversationKey(messages: RecordedRequest['messages']): string {
  const opening = messages.filter((message) => message.role === 'system' || message.role === 'user').slice(0, 2);
  return createHash('sha256').update(JSON.stringify(opening)).digest('hex').slice(0, 16);
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error('request body too large'));
        request.destroy();
      } else chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

function sendError(response: ServerResponse, status: number, message: string, headers?: Record<string, string>): void {
  const type = status === 401 ? 'invalid_request_error' : status === 429 ? 'rate_limit_exceeded' : 'server_error';
  sendJson(response, status, { error: { message, type, code: null } }, headers);
}
