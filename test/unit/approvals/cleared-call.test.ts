// The shortcut a tool's activity takes: it runs a call itself only when the policy would run it
// with nobody's approval, and never when the gate could decide otherwise.
import type { CommandAssessment } from '../../../src/approval-signals/approval-types';
import { clearedCall, clearedWithoutAsking, type GatePolicy } from '../../../src/approval-signals/cleared-call';
import type { CommandVerdict, MatchedRule } from '../../../src/approval-signals/verdict';

const rule = (id: string, tier: MatchedRule['tier']): MatchedRule => ({ id, description: `rule ${id}`, tier, key: `${id}:x`, command: 'x' });
const verdict = (tier: CommandVerdict['tier'], rules: MatchedRule[] = []): CommandVerdict => ({ tier, rules, commands: [], compound: false });
const manual: GatePolicy = { mode: 'manual', surface: 'async', unattendedPolicy: 'deny' };

function assessment(overrides: Partial<CommandAssessment> = {}): CommandAssessment {
  return { command: 'ls', verdict: verdict('safe'), isolated: false, ...overrides };
}

test('a safe command is cleared, carrying the files and paths it was judged by', () => {
  const judged = assessment({
    boundFiles: [{ path: '/w/run.sh', sha256: 'a'.repeat(64) }],
    paths: [{ path: 'notes', resolved: '/w/notes', access: 'read', contained: false }],
    hooksChecked: true,
  });
  expect(clearedWithoutAsking(judged, manual)).toEqual({
    approved: true,
    boundFiles: judged.boundFiles,
    checkedPaths: ['/w/notes'],
    hooksChecked: true,
  });
});

test.each<[string, Partial<CommandAssessment>, GatePolicy]>([
  ['a dangerous command', { command: 'rm -rf build', verdict: verdict('dangerous', [rule('D02', 'dangerous')]) }, manual],
  ['a dangerous command under smart review', { command: 'rm -rf build', verdict: verdict('dangerous', [rule('D02', 'dangerous')]) }, { ...manual, mode: 'smart' }],
  ['a command that could not be understood', { command: 'e"cho', verdict: verdict('unknown') }, manual],
  ['a hardline command, even with approvals off', { command: 'rm -rf /', verdict: verdict('hardline', [rule('H01', 'hardline')]) }, { ...manual, mode: 'off' }],
  ['a user deny rule', { deniedBy: 'curl * | sh' }, manual],
  ['a problem found while assessing', { problem: 'the workspace could not be read' }, manual],
  ['a risky path', { paths: [{ path: '.bashrc', resolved: '/root/.bashrc', access: 'write', risk: 'write to a shell start-up file', contained: false }] }, manual],
  ['a hook that blocked the call', { hookBlock: { message: 'no', source: 'plugin:guard' } }, { ...manual, mode: 'off' }],
  ['a dangerous command in an unattended session that denies', { command: 'rm -rf build', verdict: verdict('dangerous', [rule('D02', 'dangerous')]) }, { ...manual, surface: 'unattended' }],
])('%s goes to the gate', (_label, overrides, policy) => {
  expect(clearedWithoutAsking(assessment(overrides), policy)).toBeUndefined();
});

test('what the policy runs unasked runs here too, with its note', () => {
  const dangerous = assessment({ command: 'rm -rf build', verdict: verdict('dangerous', [rule('D02', 'dangerous')]) });
  expect(clearedWithoutAsking(dangerous, { ...manual, mode: 'off' })).toEqual({ approved: true, sensitive: true });
  expect(clearedWithoutAsking(dangerous, { ...manual, surface: 'unattended', unattendedPolicy: 'approve' })).toMatchObject({ approved: true, note: expect.stringContaining('rule D02') });
  expect(clearedWithoutAsking(assessment({ command: 'rm -rf build', verdict: verdict('dangerous', [rule('D02', 'dangerous')]), isolated: true }), manual)).toEqual({ approved: true });
});

test('a cleared call without findings carries nothing else', () => {
  expect(clearedCall(assessment(), 'approved by you')).toEqual({ approved: true, note: 'approved by you' });
});

test('a call the default policy would ask a person about is marked sensitive, whoever cleared it', () => {
  const secretRead = assessment({ command: undefined, verdict: undefined, paths: [{ path: '.env', resolved: '/w/.env', access: 'read', risk: 'read of a secret file', contained: false }] });
  expect(clearedCall(secretRead, 'approved by alice')).toMatchObject({ approved: true, sensitive: true });
  // Approvals off runs it unasked; what it returns is still this session's alone.
  expect(clearedWithoutAsking(secretRead, { ...manual, mode: 'off' })).toMatchObject({ approved: true, sensitive: true });
  expect(clearedWithoutAsking(assessment(), manual)).not.toHaveProperty('sensitive');
  const plainRead = assessment({ command: undefined, verdict: undefined, paths: [{ path: 'notes', resolved: '/w/notes', access: 'read', contained: false }] });
  expect(clearedCall(plainRead)).not.toHaveProperty('sensitive');
});
