// What a user relies on in a session: parallel tool calls, errors returned to the model as JSON,
// model failures retried or reported, the turn limit, and a history that stays small.
import { WorkflowFailedError } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { connectHarness, sessionIdOf, toolResults, withScriptedSession, type Harness } from '../helpers/session-harness';
import { waitFor } from '../helpers/wait';

const EventType = temporal.api.enums.v1.EventType;

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(async () => {
  await harness.close();
});

test('independent tool calls of one turn run as concurrent activities', async () => {
  const script = {
    turns: [
      {
        tool_calls: [
          { name: 'terminal', arguments: { command: 'sleep 1.5; echo first' } },
          { name: 'terminal', arguments: { command: 'sleep 1.5; echo second' } },
        ],
      },
      { content: 'both done' },
    ],
  };
  await withScriptedSession(harness, { script }, async ({ handle, store }) => {
    const started = Date.now();
    await handle.result();
    const elapsed = Date.now() - started;
    const events = (await handle.fetchHistory()).events ?? [];
    const scheduled = events.filter((event) => event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED &&
      event.activityTaskScheduledEventAttributes?.activityType?.name === 'executeTool');
    expect(scheduled).toHaveLength(2);
    // Scheduled by the same workflow task...
    const tasks = scheduled.map((event) => String(event.activityTaskScheduledEventAttributes?.workflowTaskCompletedEventId));
    expect(new Set(tasks).size).toBe(1);
    // ...and overlapping in time: each started before the other completed.
    const scheduledIds = scheduled.map((event) => String(event.eventId));
    const timeOf = (type: temporal.api.enums.v1.EventType, attribute: 'activityTaskStartedEventAttributes' | 'activityTaskCompletedEventAttributes') =>
      scheduledIds.map((id) => {
        const event = events.find((candidate) => candidate.eventType === type && String(candidate[attribute]?.scheduledEventId) === id);
        return Number(event?.eventTime?.seconds) * 1000 + Math.floor((event?.eventTime?.nanos ?? 0) / 1e6);
      });
    const startedAt = timeOf(EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED, 'activityTaskStartedEventAttributes');
    const completedAt = timeOf(EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED, 'activityTaskCompletedEventAttributes');
    expect(startedAt[0]).toBeLessThan(completedAt[1]!);
    expect(startedAt[1]).toBeLessThan(completedAt[0]!);
    expect(elapsed).toBeLessThan(2900);
    // Results are stored in call order.
    expect((await toolResults(store, handle)).map((result) => result.output)).toEqual(['first', 'second']);
  });
});

test('a command that changes directory runs alone and its cd carries over to the next turn', async () => {
  const script = {
    turns: [
      { tool_calls: [{ name: 'terminal', arguments: { command: 'mkdir -p sub && cd sub' } }, { name: 'terminal', arguments: { command: 'pwd' } }] },
      { tool_calls: [{ name: 'terminal', arguments: { command: 'pwd' } }] },
      { content: 'ok' },
    ],
  };
  await withScriptedSession(harness, { script }, async ({ handle, store, config }) => {
    await handle.result();
    const results = await toolResults(store, handle);
    expect(results.map((result) => result.output)).toEqual(['', `${config.session.cwd}/sub`, `${config.session.cwd}/sub`]);
  });
});

test('a failing tool, an unknown tool and malformed arguments come back to the model as JSON errors', async () => {
  const script = {
    turns: [
      {
        tool_calls: [
          { name: 'read_file', arguments: { path: 'does-not-exist.txt' } },
          { name: 'no_such_tool', arguments: {} },
          { name: 'terminal', arguments: '{"command": "echo unterminated' },
          { name: 'write_file', arguments: { content: 'no path given' } },
        ],
      },
      { content: 'I saw the errors.' },
    ],
  };
  await withScriptedSession(harness, { script }, async ({ handle, store, model }) => {
    const result = await handle.result();
    expect(result.status).toBe('completed');
    const [missing, unknown, malformed, invalid] = await toolResults(store, handle);
    expect(missing).toMatchObject({ error: 'File not found: does-not-exist.txt' });
    expect(unknown).toMatchObject({ error: 'Unknown tool: no_such_tool' });
    expect(unknown!.available_tools).toEqual(expect.arrayContaining(['terminal', 'read_file']));
    expect(malformed).toEqual({
      error: 'Invalid tool arguments',
      message: 'Tool arguments must be a valid JSON object; tool was not executed.',
    });
    expect(String(invalid!.error)).toMatch(/^Invalid arguments for write_file: path: /);
    // The model received all four results, each answering its own call.
    const toolMessages = model.requests[1]!.messages.filter((message) => message.role === 'tool');
    expect(toolMessages.map((message) => message.tool_call_id)).toEqual(['call_0_0', 'call_0_1', 'call_0_2', 'call_0_3']);
  });
});

test('a model server error is retried and the session carries on', async () => {
  const script = {
    turns: [
      { fail_first: [{ status: 500, message: 'upstream exploded' }, { status: 429, message: 'slow down', retry_after_seconds: 0 }], content: 'recovered' },
    ],
  };
  await withScriptedSession(harness, { script }, async ({ handle, model }) => {
    const result = await handle.result();
    expect(result).toMatchObject({ status: 'completed', answer: 'recovered' });
    expect(model.requests).toHaveLength(3);
    const events = (await handle.fetchHistory()).events ?? [];
    const started = events.find((event) => event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED &&
      event.activityTaskStartedEventAttributes?.attempt === 3);
    expect(started).toBeDefined();
  });
});

test('a rejected API key fails the session at once with a reason an operator can act on', async () => {
  const script = { turns: [{ always_fail: { status: 401, message: 'Incorrect API key provided' } }] };
  await withScriptedSession(harness, { script }, async ({ handle, model, store }) => {
    const failure = await handle.result().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    const cause = (failure as WorkflowFailedError).cause;
    expect(cause?.message).toMatch(/Model call failed: Model API returned HTTP 401 .*Incorrect API key provided.*OPENAI_API_KEY/);
    expect(model.requests).toHaveLength(1);
    expect((await store.getSession(sessionIdOf(handle)))?.status).toBe('failed');
    const description = await handle.describe();
    expect(description.searchAttributes.HermesStatus).toEqual(['failed']);
  });
});

test('the turn limit ends the session cleanly with a reason', async () => {
  const loop = { tool_calls: [{ name: 'terminal', arguments: { command: 'echo again' } }] };
  const script = { turns: [loop, loop, loop, loop, loop] };
  await withScriptedSession(harness, { script, config: { session: { max_turns: 3 } } }, async ({ handle }) => {
    const result = await handle.result();
    expect(result).toMatchObject({ status: 'max_turns', turns: 3, toolCalls: 3 });
    expect(result.reason).toBe('Stopped after reaching the maximum of 3 turns without a final answer');
    const description = await handle.describe();
    expect(description.status.name).toBe('COMPLETED');
    expect(description.searchAttributes.HermesStopReason).toEqual(['max_turns']);
  });
});

test('history stays small when tool output is large: 30 turns of 20 KB output', async () => {
  const big = { tool_calls: [{ name: 'terminal', arguments: { command: "head -c 20000 /dev/zero | tr '\\0' x" } }] };
  const script = { turns: [...Array.from({ length: 30 }, () => big), { content: 'done' }] };
  await withScriptedSession(harness, { script, config: { session: { max_turns: 40 } } }, async ({ handle, store }) => {
    const result = await handle.result();
    expect(result).toMatchObject({ status: 'completed', toolCalls: 30 });
    const transcriptChars = (await store.getMessages(sessionIdOf(handle))).reduce((sum, message) => sum + (message.content ?? '').length, 0);
    expect(transcriptChars).toBeGreaterThan(600_000);
    const description = await handle.describe();
    expect(description.historySize).toBeLessThan(1_000_000);
    expect(description.historySize).toBeLessThan(transcriptChars / 4);
  });
});

test('search attributes and memo make the session findable in the UI', async () => {
  const script = { turns: [{ tool_calls: [{ name: 'terminal', arguments: { command: 'true' } }] }, { content: 'ok' }] };
  await withScriptedSession(harness, { script, task: 'find me in the UI' }, async ({ handle }) => {
    await handle.result();
    const description = await handle.describe();
    expect(description.searchAttributes).toMatchObject({
      HermesStatus: ['completed'],
      HermesModel: ['scripted'],
      HermesToolCalls: [1],
      HermesStopReason: ['completed'],
    });
    expect(description.memo).toMatchObject({ task: 'find me in the UI' });
    // A visibility query an operator would type in the UI finds it.
    const query = `WorkflowId = '${handle.workflowId}' AND HermesStatus = 'completed' AND HermesToolCalls >= 1`;
    let found = 0;
    for (let attempt = 0; attempt < 50 && !found; attempt += 1) {
      found = (await harness.client.workflow.count(query)).count;
      if (!found) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(found).toBe(1);
  });
});

test('the tool-call count reaches the UI within seconds, without a history event for every quick turn', async () => {
  const quick = { tool_calls: [{ name: 'read_file', arguments: { path: 'missing.txt' } }] };
  const slow = { tool_calls: [{ name: 'terminal', arguments: { command: 'sleep 3' } }] };
  const script = { turns: [...Array.from({ length: 8 }, () => quick), slow, slow, { content: 'done' }] };
  await withScriptedSession(harness, { script }, async ({ handle }) => {
    // During the last call, the nine before it are counted (the slow turn before it took seconds).
    await waitFor(async () => (await handle.describe()).searchAttributes.HermesToolCalls?.[0] === 9, { timeoutMs: 20_000, what: 'HermesToolCalls = 9' });
    expect((await handle.describe()).searchAttributes.HermesStatus).toEqual(['running']);
    await handle.result();
    expect((await handle.describe()).searchAttributes).toMatchObject({ HermesStatus: ['completed'], HermesToolCalls: [10] });
    // Quick turns share an upsert: each is a history event and a visibility write on the server.
    const events = (await handle.fetchHistory()).events ?? [];
    const countUpserts = events.filter((event) =>
      Object.keys(event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {}).includes('HermesToolCalls'),
    );
    expect(countUpserts.length).toBeGreaterThanOrEqual(2);
    expect(countUpserts.length).toBeLessThanOrEqual(6);
  });
});
