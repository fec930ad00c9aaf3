// A plugin in the user's folder, on a real Temporal server: its tool is offered to the model and
// runs as an activity; its pre_tool_call hook blocks a call and the model reads why; session
// hooks fire on the worker; the activity's recorded result names the hook that blocked.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { approvalAuditQuery } from '../../src/approval-signals/definitions';
import { echoToolSource, writeFolderPlugin } from '../helpers/plugin-fixtures';
import { connectHarness, replaySessionHistory, sessionIdOf, tempDir, toolResults, withScriptedSession, type Harness } from '../helpers/session-harness';

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(async () => {
  await harness.close();
});

test('a user plugin adds a tool and a pre_tool_call hook that blocks a call, with the reason for the model', async () => {
  const home = tempDir('hermes-plugin-home-');
  const events = path.join(home, 'events.log');
  writeFolderPlugin(
    path.join(home, 'plugins'),
    'guard',
    [
      echoToolSource('shout'),
      `const fs = require('node:fs');`,
      `context.registerHook('pre_tool_call', (call) => { fs.appendFileSync(${JSON.stringify(events)}, 'pre ' + call.tool_name + '\\n'); return call.tool_name === 'terminal' && String(call.args.command).includes('forbidden-dir') ? { action: 'block', message: 'The guard plugin does not allow forbidden commands.' } : undefined; });`,
      `context.registerHook('transform_terminal_output', (event) => '[guarded] ' + event.output);`,
      `context.registerHook('on_session_start', (event) => fs.appendFileSync(${JSON.stringify(events)}, 'start ' + event.session_id + '\\n'));`,
      `context.registerHook('on_session_end', (event) => fs.appendFileSync(${JSON.stringify(events)}, 'end ' + event.completed + '\\n'));`,
    ].join('\n'),
  );
  const script = {
    turns: [
      { tool_calls: [{ name: 'shout', arguments: { text: 'hello' } }, { name: 'terminal', arguments: { command: 'rm -rf forbidden-dir' } }, { name: 'terminal', arguments: { command: 'echo fine' } }] },
      { content: 'done' },
    ],
  };
  await withScriptedSession(harness, { script, home, config: { plugins: { enabled: ['guard'] } } }, async ({ handle, store, model }) => {
    expect(await handle.result()).toMatchObject({ status: 'completed', toolCalls: 3 });
    // The plugin's tool was offered to the model and ran.
    const offered = (model.requests[0]!.tools ?? []).map((tool) => (tool as { function: { name: string } }).function.name);
    expect(offered).toContain('shout');
    const results = await toolResults(store, handle);
    expect(results[0]).toEqual({ echoed: 'hello' });
    // The hook's reason is what the model read in place of the command's output; the rm -rf,
    // dangerous as it is, was never put to a human (the session finished without an answer).
    expect(results[1]).toEqual({ error: 'The guard plugin does not allow forbidden commands.' });
    expect(JSON.stringify(model.requests[1]!.messages.at(-2))).toContain('The guard plugin does not allow forbidden commands.');
    // transform_terminal_output rewrote the command's output before the model read it.
    expect(results[2]).toMatchObject({ output: '[guarded] fine', exit_code: 0 });
    // What the hook decided is in the activity's recorded result, so a replay reads it rather than asking again.
    const history = await handle.fetchHistory();
    const completed = history.events?.filter((event) => event.activityTaskCompletedEventAttributes) ?? [];
    // (A blocked call is written with the other refusals of its turn: their outcomes come as a list.)
    const outcomes = completed
      .flatMap((event) => event.activityTaskCompletedEventAttributes?.result?.payloads ?? [])
      .flatMap((payload) => [defaultPayloadConverter.fromPayload<unknown>(payload)].flat());
    expect(outcomes).toContainEqual(expect.objectContaining({ blockedBy: 'plugin:guard', ok: false }));
    // Each call asked the hook once (gated calls at assessment, the others in their activity); nobody was asked to approve.
    const lines = readFileSync(events, 'utf8').trim().split('\n');
    expect(lines[0]).toBe(`start ${sessionIdOf(handle)}`);
    expect(lines.slice(1, -1).sort()).toEqual(['pre shout', 'pre terminal', 'pre terminal']);
    expect(lines.at(-1)).toBe('end true');
    expect(await handle.query(approvalAuditQuery)).toEqual([]);
    // The recorded history replays against the workflow code with the same decisions.
    await replaySessionHistory(handle);
  });
});
