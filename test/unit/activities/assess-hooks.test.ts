// pre_tool_call at assessment: a call a hook blocks is never put to a human (the gate blocks it
// with the hook's reason); one the hooks allow is marked so the tool does not ask them again.
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { createApprovalActivities } from '../../../src/activities/approval-activities';
import { ModelClients } from '../../../src/activities/model-clients';
import { loadCommandClassifier } from '../../../src/approval-signals/classify-command';
import { loadConfig } from '../../../src/config/load';
import { EnvironmentFactory } from '../../../src/environments/factory';
import { HookRegistry } from '../../../src/hooks/hook-registry';
import { registry } from '../../../src/registry/registry';
import { SqliteSessionStore } from '../../../src/store/sqlite-session-store';
import '../../../src/tools/terminal';
import { tempDir } from '../../helpers/temp-dirs';

const workspace = realpathSync(tempDir('assess-hooks-'));
const store = new SqliteSessionStore(':memory:');
const hooks = new HookRegistry();
const seen: Record<string, unknown>[] = [];
hooks.register({
  event: 'pre_tool_call',
  source: 'plugin:guard',
  callback: (call) => {
    seen.push(call);
    return String((call.args as { command?: unknown }).command).includes('prod') ? { action: 'block', message: 'not on prod' } : undefined;
  },
});
const config = loadConfig({ env: { HERMES_TEMPORAL_HOME: path.join(workspace, '.home') }, projectDir: workspace });
const activities = createApprovalActivities({ store, config, models: new ModelClients({ timeoutSeconds: 5 }), registry, environments: new EnvironmentFactory(), hooks });
let seq = 0;

beforeAll(async () => {
  await loadCommandClassifier();
  await store.createSession({ sessionId: 's', workflowId: 'w', task: 't', model: 'm', cwd: workspace, toolNames: ['terminal'], status: 'running' });
});
afterAll(() => store.close());

async function assess(command: string, id = `c${seq + 1}`) {
  seq += 1;
  await store.appendMessage('s', { seq, role: 'assistant', content: null, toolCalls: [{ id, name: 'terminal', arguments: JSON.stringify({ command }) }] });
  return activities.assessCommand({ sessionId: 's', assistantSeq: seq, toolCallId: id, environment: { backend: 'local', cwd: workspace, sessionId: 's' } });
}

it('a blocked call carries the hook and its reason, and is not judged further', async () => {
  const assessment = await assess('rm -rf /srv/prod');
  expect(assessment.hookBlock).toEqual({ message: 'not on prod', source: 'plugin:guard' });
  expect(assessment.verdict).toBeUndefined();
});

it('an allowed call is judged as usual and marked as checked by the hooks', async () => {
  const assessment = await assess('rm -rf build');
  expect(assessment.hooksChecked).toBe(true);
  expect(assessment.command).toBe('rm -rf build');
});

it("a script's call tells the hooks which execute_code call it belongs to", async () => {
  await assess('ls', 'call_7.code-2');
  expect(seen.at(-1)).toMatchObject({ tool_name: 'terminal', tool_call_id: 'call_7.code-2', parent_tool_call_id: 'call_7' });
});
