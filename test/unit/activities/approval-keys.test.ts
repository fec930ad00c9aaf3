// Approval keys name the whole command: a session approval of one long command never covers
// another that only shares its beginning, however the keys are shortened for history.
import os from 'node:os';
import { createApprovalActivities } from '../../../src/activities/approval-activities';
import { ModelClients } from '../../../src/activities/model-clients';
import { boundedApprovalKey, MAX_PLAIN_APPROVAL_KEY } from '../../../src/approval-signals/approval-key';
import { loadCommandClassifier } from '../../../src/approval-signals/classify-command';
import { decideCommand } from '../../../src/approval-signals/policy';
import type { CommandAssessment } from '../../../src/approval-signals/approval-types';
import { loadConfig } from '../../../src/config/load';
import { EnvironmentFactory } from '../../../src/environments/factory';
import { registry } from '../../../src/registry/registry';
import { SqliteSessionStore } from '../../../src/store/sqlite-session-store';
import '../../../src/tools/terminal';

const store = new SqliteSessionStore(':memory:');
const config = loadConfig({ env: { HERMES_TEMPORAL_HOME: os.tmpdir() } });
const activities = createApprovalActivities({ store, config, models: new ModelClients({ timeoutSeconds: 5 }), registry, environments: new EnvironmentFactory() });

const longPath = `${'d'.repeat(250)}/${'e'.repeat(250)}`;
const commands: Record<string, string> = {
  approved: `rm -rf ${longPath}`,
  wider: `rm -rf ${longPath} src .git; ls -la`,
  script: `python3 -c 'print("${'x'.repeat(600)}")'`,
  destructiveScript: `python3 -c 'print("${'x'.repeat(600)}"); import shutil; shutil.rmtree(".git")'`,
  many: Array.from({ length: 21 }, (_, index) => `rm -rf ../gone${index}`).join('; '),
  manyPlusOne: `${Array.from({ length: 21 }, (_, index) => `rm -rf ../gone${index}`).join('; ')}; rm -rf ../precious`,
};

beforeAll(async () => {
  await loadCommandClassifier();
  await store.createSession({ sessionId: 's', workflowId: 'w', task: 't', model: 'm', cwd: '/work', toolNames: ['terminal'], status: 'running' });
  await store.appendMessage('s', {
    seq: 2,
    role: 'assistant',
    content: null,
    toolCalls: Object.entries(commands).map(([id, command]) => ({ id, name: 'terminal', arguments: JSON.stringify({ command }) })),
  });
});
afterAll(() => store.close());

const assess = (toolCallId: string) => activities.assessCommand({ sessionId: 's', assistantSeq: 2, toolCallId, environment: { backend: 'local', cwd: '/work' } });

/** What the policy does with `assessment` once every key `approved` asked for was approved for the session. */
function afterSessionApproval(approved: CommandAssessment, assessment: CommandAssessment) {
  const settings = { mode: 'manual', surface: 'async', unattendedPolicy: 'deny', allowlist: new Set<string>() } as const;
  const first = decideCommand({ ...settings, assessment: approved, sessionApprovals: new Set() });
  if (first.action !== 'ask') throw new Error(`expected the first command to ask, got ${first.action}`);
  return decideCommand({ ...settings, assessment, sessionApprovals: new Set(first.keys) });
}

test('a short key stays as it is; a long one keeps its beginning and a digest of the whole', () => {
  expect(boundedApprovalKey('D02:rm -f -r build')).toBe('D02:rm -f -r build');
  const long = `D02:rm -f -r ${'a'.repeat(600)}`;
  const bounded = boundedApprovalKey(long);
  expect(bounded.startsWith(long.slice(0, MAX_PLAIN_APPROVAL_KEY))).toBe(true);
  expect(bounded.length).toBeGreaterThan(MAX_PLAIN_APPROVAL_KEY);
  expect(boundedApprovalKey(`${long}b`)).not.toBe(bounded);
  expect(boundedApprovalKey(long)).toBe(bounded);
});

test('a session approval of a long delete does not cover a longer one that shares its first 500 characters', async () => {
  const [approved, wider] = await Promise.all([assess('approved'), assess('wider')]);
  expect(afterSessionApproval(approved, approved).action).toBe('run');
  expect(afterSessionApproval(approved, wider)).toMatchObject({ action: 'ask' });
});

test('a script whose destructive part lies past the first 500 characters is asked about again', async () => {
  const [script, destructive] = await Promise.all([assess('script'), assess('destructiveScript')]);
  expect(afterSessionApproval(script, destructive)).toMatchObject({ action: 'ask' });
});

test('rules past the ones kept in history still need their own approval', async () => {
  const [many, manyPlusOne] = await Promise.all([assess('many'), assess('manyPlusOne')]);
  expect(manyPlusOne.verdict?.rules.length).toBeLessThanOrEqual(20);
  expect(afterSessionApproval(many, many).action).toBe('run');
  expect(afterSessionApproval(many, manyPlusOne)).toMatchObject({ action: 'ask' });
});
