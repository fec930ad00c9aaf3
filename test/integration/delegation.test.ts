// Sub-agents on the real server: delegate_task starts child workflows that run their own
// sessions; their results come back into the parent's conversation; limits and roles hold.
import { temporal } from '@temporalio/proto';
import { statusQuery } from '../../src/workflows/messages';
import { connectHarness, sessionIdOf, withScriptedSession, type Harness } from '../helpers/session-harness';

const EventType = temporal.api.enums.v1.EventType;

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(async () => {
  await harness.close();
});

/** A child that runs one command and answers with what it printed. */
const worker = (match: string, command: string) => ({
  match,
  turns: [{ tool_calls: [{ name: 'terminal', arguments: { command } }] }, { content: `${match} done: {{last.output}}` }],
});

test('a batch of 8 sub-agents, one an orchestrator with 2 of its own, reports every result into the parent conversation', async () => {
  const tasks = Array.from({ length: 7 }, (_, index) => ({ goal: `leaf-${index}: print ${index}` }));
  const script = {
    turns: [
      { tool_calls: [{ name: 'delegate_task', arguments: { tasks: [...tasks, { goal: 'orchestrator-0: split work', role: 'orchestrator' }] } }] },
      // The model answers after every report it is shown (up to one per child).
      ...Array.from({ length: 9 }, () => ({ content: 'all results read' })),
    ],
    agents: [
      ...tasks.map((_, index) => worker(`leaf-${index}`, `echo value-${index}`)),
      {
        match: 'orchestrator-0',
        turns: [
          { tool_calls: [{ name: 'delegate_task', arguments: { tasks: [{ goal: 'grandchild-a: print a' }, { goal: 'grandchild-b: print b' }] } }] },
          ...Array.from({ length: 3 }, () => ({ content: 'orchestrated both' })),
        ],
      },
      worker('grandchild-a', 'echo gc-a'),
      worker('grandchild-b', 'echo gc-b'),
    ],
  };
  const config = { delegation: { max_concurrent_children: 8, max_spawn_depth: 2 } };
  await withScriptedSession(harness, { script, config, task: 'root task: fan out' }, async ({ handle, store }) => {
    const result = await handle.result();
    expect(result.status).toBe('completed');
    const rootId = sessionIdOf(handle);
    const messages = await store.getMessages(rootId);

    // The tool call returned at once, dispatching 8 children.
    const dispatched = JSON.parse(messages.find((message) => message.role === 'tool')?.content ?? '{}') as Record<string, unknown>;
    expect(dispatched).toMatchObject({ status: 'dispatched', mode: 'background', count: 8 });

    // Each child's result came back as its own user message, before the final turn.
    const reports = messages.filter((message) => message.role === 'user' && message.content?.startsWith('[SUBAGENT RESULT'));
    expect(reports.length).toBe(8);
    const entries = reports.flatMap((message) => (message.content ?? '').split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>));
    for (let index = 0; index < 7; index += 1) {
      expect(entries.find((entry) => entry.task_index === index)).toMatchObject({ status: 'completed', summary: `leaf-${index} done: value-${index}`, api_calls: 2, tool_calls: 1 });
    }
    expect(entries.find((entry) => entry.task_index === 7)).toMatchObject({ status: 'completed', summary: 'orchestrated both' });

    // The orchestrator's own children reported to it, not to the root.
    const orchestrator = entries.find((entry) => entry.task_index === 7)?.session_id as string;
    const orchestratorMessages = await store.getMessages(orchestrator);
    const grandchildReports = orchestratorMessages.filter((message) => message.role === 'user' && message.content?.startsWith('[SUBAGENT RESULT'));
    expect(grandchildReports.map((message) => message.content).join('\n')).toContain('grandchild-a done: gc-a');
    expect(grandchildReports.map((message) => message.content).join('\n')).toContain('grandchild-b done: gc-b');

    // The tree is in the store: parent links, and each child's own transcript under its own id.
    const leaf = await store.getSession(entries.find((entry) => entry.task_index === 0)?.session_id as string);
    expect(leaf?.parentSessionId).toBe(rootId);
    expect(leaf?.toolNames).not.toContain('delegate_task');
    expect(leaf?.toolNames).not.toContain('memory');
    expect((await store.getSession(orchestrator))?.toolNames).toContain('delegate_task');

    // They are child workflows of the root in Temporal, with the root recorded on each.
    const history = await handle.fetchHistory();
    const initiated = (history.events ?? []).filter((event) => event.eventType === EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED);
    expect(initiated).toHaveLength(8);
    const status = await handle.query(statusQuery);
    expect(status.children?.map((child) => child.status)).toEqual(Array(8).fill('completed'));
    expect(status.events.filter((event) => event.type === 'child_finished')).toHaveLength(8);
  });
});

test('delegation limits: too many tasks, depth, and leaf children that cannot delegate', async () => {
  const script = {
    turns: [
      { tool_calls: [{ name: 'delegate_task', arguments: { tasks: [{ goal: 'a' }, { goal: 'b' }, { goal: 'c' }, { goal: 'd' }] } }] },
      { tool_calls: [{ name: 'delegate_task', arguments: {} }] },
      { tool_calls: [{ name: 'delegate_task', arguments: { goal: 'leaf-x: try to delegate', role: 'orchestrator' } }] },
      { content: 'done' },
    ],
    agents: [{ match: 'leaf-x', turns: [{ tool_calls: [{ name: 'delegate_task', arguments: { goal: 'nested' } }] }, { content: 'could not' }] }],
  };
  await withScriptedSession(harness, { script, task: 'limits' }, async ({ handle, store }) => {
    await handle.result();
    const results = (await store.getMessages(sessionIdOf(handle))).filter((message) => message.role === 'tool').map((message) => JSON.parse(message.content ?? '{}') as { error?: string; count?: number; session_ids?: string[] });
    expect(results[0]?.error).toBe(
      'Too many tasks: 4 provided, but max_concurrent_children is 3. Either reduce the task count, split into multiple delegate_task calls, or increase delegation.max_concurrent_children in config.yaml.',
    );
    expect(results[1]?.error).toBe("Provide either 'goal' (single task) or 'tasks' (batch).");
    expect(results[2]?.count).toBe(1);
    // With max_spawn_depth 1 the child is a leaf: it has no delegate_task at all.
    const child = results[2]?.session_ids?.[0] as string;
    const childResults = (await store.getMessages(child)).filter((message) => message.role === 'tool');
    expect(JSON.parse(childResults[0]?.content ?? '{}').error).toMatch(/^Unknown tool: delegate_task/);
  });
});
