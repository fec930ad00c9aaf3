// The scripted model server as the real OpenAI client sees it: the right turn for each
// conversation, scripted failures in order, and a clear message when the script is wrong or used up.
import OpenAI from 'openai';
import { parseModelScript } from '../../../src/model/model-script';
import { startScriptedModelServer, type ScriptedModelServer } from '../../../src/model/scripted-model-server';
import type { ModelScriptInput } from '../../../src/model/model-script';

type Message = OpenAI.Chat.Completions.ChatCompletionMessageParam;

let server: ScriptedModelServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(script: ModelScriptInput): Promise<{ server: ScriptedModelServer; client: OpenAI }> {
  server = await startScriptedModelServer({ script });
  return { server, client: new OpenAI({ baseURL: server.url, apiKey: 'x', maxRetries: 0 }) };
}

const ask = (client: OpenAI, messages: Message[]) => client.chat.completions.create({ model: 'scripted-test', messages });

/** The error a request fails with; fails the test if it succeeds. */
async function failureOf(request: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  try {
    await request;
  } catch (error) {
    expect(error).toBeInstanceOf(OpenAI.APIError);
    return error as InstanceType<typeof OpenAI.APIError>;
  }
  throw new Error('expected the request to fail');
}

const user = (content: string): Message => ({ role: 'user', content });
const assistant = (content: string): Message => ({ role: 'assistant', content });

describe('turn selection', () => {
  it('answers with the turn matching the number of assistant messages so far', async () => {
    const { client } = await start({ turns: [{ content: 'first' }, { content: 'second' }, { content: 'third' }] });
    expect((await ask(client, [user('go')])).choices[0]!.message.content).toBe('first');
    const second = await ask(client, [user('go'), assistant('first'), user('more')]);
    expect(second.choices[0]!.message.content).toBe('second');
    expect(second.choices[0]!.finish_reason).toBe('stop');
    // Asking the first question again (a retry) gets the first turn again.
    expect((await ask(client, [user('go')])).choices[0]!.message.content).toBe('first');
  });

  it('tells the client when the script has no more turns', async () => {
    const { client } = await start({ turns: [{ content: 'only' }] });
    const reply = await ask(client, [user('go'), assistant('only'), user('and then?')]);
    expect(reply.choices[0]!.message.content).toBe('(scripted model: the script has no more turns)');
  });

  it('sends tool calls with object arguments as JSON and string arguments exactly as written', async () => {
    const { client } = await start({
      turns: [
        {
          content: null,
          tool_calls: [
            { name: 'terminal', arguments: { command: 'ls -la', timeout: 5 } },
            { name: 'read_file', arguments: '{"path": "a.txt"', id: 'custom-id' },
            { name: 'todo' },
          ],
        },
      ],
    });
    const choice = (await ask(client, [user('go')])).choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    const calls = (choice.message.tool_calls ?? []).map((call) => (call.type === 'function' ? call : undefined));
    expect(calls).toEqual([
      { id: 'call_0_0', type: 'function', function: { name: 'terminal', arguments: '{"command":"ls -la","timeout":5}' } },
      { id: 'custom-id', type: 'function', function: { name: 'read_file', arguments: '{"path": "a.txt"' } },
      { id: 'call_0_2', type: 'function', function: { name: 'todo', arguments: '{}' } },
    ]);
  });
});

describe('scripted failures', () => {
  it('serves fail_first statuses in order, then succeeds', async () => {
    const { client } = await start({
      turns: [{ content: 'finally', fail_first: [{ status: 429, message: 'slow down' }, { status: 503 }, { status: 500 }] }],
    });
    const statuses: (number | undefined)[] = [];
    for (let attempt = 0; attempt < 3; attempt += 1) statuses.push((await failureOf(ask(client, [user('go')]))).status);
    expect(statuses).toEqual([429, 503, 500]);
    expect((await ask(client, [user('go')])).choices[0]!.message.content).toBe('finally');
    expect((await ask(client, [user('go')])).choices[0]!.message.content).toBe('finally');
  });

  it('puts the scripted message in the error the client sees', async () => {
    const { client } = await start({ turns: [{ content: 'ok', fail_first: [{ status: 400, message: 'bad tool schema' }] }] });
    const error = await failureOf(ask(client, [user('go')]));
    expect(error.status).toBe(400);
    expect(error.message).toContain('bad tool schema');
  });

  it('counts failures per conversation: another task gets its own failures', async () => {
    const { client } = await start({ turns: [{ content: 'ok', fail_first: [{ status: 500 }] }] });
    expect((await failureOf(ask(client, [user('task one')]))).status).toBe(500);
    expect((await ask(client, [user('task one')])).choices[0]!.message.content).toBe('ok');
    expect((await failureOf(ask(client, [user('task two')]))).status).toBe(500);
    expect((await ask(client, [user('task two')])).choices[0]!.message.content).toBe('ok');
  });

  it('counts failures per turn of a conversation', async () => {
    const { client } = await start({ turns: [{ content: 'one' }, { content: 'two', fail_first: [{ status: 502 }] }] });
    expect((await ask(client, [user('go')])).choices[0]!.message.content).toBe('one');
    const later: Message[] = [user('go'), assistant('one'), user('next')];
    expect((await failureOf(ask(client, later))).status).toBe(502);
    expect((await ask(client, later)).choices[0]!.message.content).toBe('two');
  });

  it('fails every request of an always_fail turn', async () => {
    const { client } = await start({ turns: [{ content: 'never', always_fail: { status: 401, message: 'bad key' } }] });
    for (let attempt = 0; attempt < 4; attempt += 1) {
      const error = await failureOf(ask(client, [user('go')]));
      expect(error.status).toBe(401);
      expect(error.message).toContain('bad key');
    }
  });

  it('sends a retry-after header when the failure asks for one', async () => {
    const { client } = await start({ turns: [{ content: 'ok', fail_first: [{ status: 429, retry_after_seconds: 3 }, { status: 429 }] }] });
    expect((await failureOf(ask(client, [user('go')]))).headers?.get('retry-after')).toBe('3');
    expect((await failureOf(ask(client, [user('go')]))).headers?.get('retry-after')).toBeNull();
  });
});

describe('the server', () => {
  it('lists a model at GET /v1/models', async () => {
    const { client } = await start({ turns: [{ content: 'x' }] });
    const models = [];
    for await (const model of client.models.list()) models.push(model.id);
    expect(models).toEqual(['scripted']);
  });

  it('answers unknown routes with 404', async () => {
    const { server } = await start({ turns: [{ content: 'x' }] });
    const response = await fetch(`${server.url}/embeddings`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(404);
  });

  it('records every request with its turn, model, messages and tools', async () => {
    const { server, client } = await start({ turns: [{ content: 'a', fail_first: [{ status: 500 }] }, { content: 'b' }] });
    await failureOf(ask(client, [user('go')]));
    await ask(client, [user('go')]);
    await client.chat.completions.create({
      model: 'other-model',
      messages: [{ role: 'system', content: 'be brief' }, user('go'), assistant('a'), user('next')],
      tools: [{ type: 'function', function: { name: 'terminal', description: 'run', parameters: { type: 'object' } } }],
    });
    expect(server.requests.map((request) => request.turn)).toEqual([0, 0, 1]);
    const last = server.requests[2]!;
    expect(last.model).toBe('other-model');
    expect(last.messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(last.tools?.map((tool) => tool.function.name)).toEqual(['terminal']);
    expect(server.requests[0]!.receivedAt).toBeLessThanOrEqual(last.receivedAt);
  });

  it('rejects an invalid script with a message naming the problem', async () => {
    await expect(startScriptedModelServer({ script: { turns: [] } })).rejects.toThrow(/Invalid model script:[\s\S]*turns/);
    expect(() => parseModelScript({ turns: [{ content: 'x', fail_first: [{ status: 200 }] }] })).toThrow(
      /Invalid model script:[\s\S]*turns\[0\]\.fail_first\[0\]\.status/,
    );
    expect(() => parseModelScript({ turns: [{ contnet: 'typo' }] })).toThrow(/Invalid model script:[\s\S]*contnet/);
  });
});
