// The approval policy, decided purely from a verdict and the session's settings.
import { decideCommand, type PolicyInput } from '../../../src/approval-signals/policy';
import type { CommandVerdict, MatchedRule } from '../../../src/approval-signals/verdict';

const rule = (id: string, tier: MatchedRule['tier'], key = `${id}:x`): MatchedRule => ({ id, description: `rule ${id}`, tier, key, command: 'x' });
const verdict = (tier: CommandVerdict['tier'], rules: MatchedRule[], compound = false): CommandVerdict => ({ tier, rules, commands: [], compound });

function input(overrides: Partial<PolicyInput> & { verdict?: CommandVerdict; command?: string; deniedBy?: string; isolated?: boolean }): PolicyInput {
  return {
    assessment: {
      command: overrides.command ?? 'rm -rf build',
      verdict: overrides.verdict ?? verdict('dangerous', [rule('D02', 'dangerous')]),
      isolated: overrides.isolated ?? false,
      ...(overrides.deniedBy ? { deniedBy: overrides.deniedBy } : {}),
    },
    mode: overrides.mode ?? 'manual',
    surface: overrides.surface ?? 'async',
    unattendedPolicy: overrides.unattendedPolicy ?? 'deny',
    sessionApprovals: overrides.sessionApprovals ?? new Set(),
    allowlist: overrides.allowlist ?? new Set(),
  };
}

const hardline = verdict('hardline', [rule('H01', 'hardline'), rule('D01', 'dangerous')]);

test.each([
  ['manual mode', {}],
  ['mode off', { mode: 'off' as const }],
  ['an isolated container', { isolated: true }],
  ['an unattended session that approves everything', { surface: 'unattended' as const, unattendedPolicy: 'approve' as const }],
  ['an allowlisted key', { allowlist: new Set(['H01:x']) }],
])('hardline commands are blocked in %s', (_label, overrides) => {
  expect(decideCommand(input({ ...overrides, verdict: hardline }))).toMatchObject({ action: 'block', kind: 'hardline' });
});

test('a command the detector could not read whole is asked about even with mode off or in a container, where only the hardline floor stands', () => {
  // Padded past the length limit, or behind more wrappers than are peeled, it could hide `rm -rf /`.
  const unread = verdict('dangerous', [rule('D02', 'dangerous'), rule('U04', 'unknown')]);
  for (const overrides of [{ mode: 'off' as const }, { isolated: true }]) {
    const decision = decideCommand(input({ ...overrides, verdict: unread }));
    expect(decision).toMatchObject({ action: 'ask', keys: ['U04:x'] });
    expect(decision.action === 'ask' && decision.description).toMatch(/not checked against what is always blocked/);
  }
  // Unattended, it follows the unattended policy; approved for the session, it runs.
  expect(decideCommand(input({ mode: 'off', surface: 'unattended', verdict: unread }))).toMatchObject({ action: 'block', kind: 'unattended' });
  expect(decideCommand(input({ mode: 'off', verdict: unread, sessionApprovals: new Set(['U04:x']) }))).toEqual({ action: 'run' });
  // Everything else still runs unasked with mode off.
  expect(decideCommand(input({ mode: 'off' }))).toEqual({ action: 'run' });
  expect(decideCommand(input({ mode: 'off', verdict: verdict('unknown', [rule('U01', 'unknown')]) }))).toEqual({ action: 'run' });
});

test('a hardline finding in text only guessed to run is asked about with mode off and in a container, where a known one blocks', () => {
  // `notify-send "rm -rf /"` is as likely a message as a command, so it is not blocked; but with
  // approvals off nothing else would stop it, so the floor turns into a question rather than a run.
  const guessed: MatchedRule = { ...rule('H01', 'dangerous', 'H01:rm -rf / (if notify-send runs its text)'), guessedHardline: true };
  for (const overrides of [{ mode: 'off' as const }, { isolated: true }, {}]) {
    expect(decideCommand(input({ ...overrides, verdict: verdict('dangerous', [guessed]) }))).toMatchObject({ action: 'ask', keys: [guessed.key] });
  }
  expect(decideCommand(input({ mode: 'off', surface: 'unattended', verdict: verdict('dangerous', [guessed]) }))).toMatchObject({ action: 'block', kind: 'unattended' });
  expect(decideCommand(input({ mode: 'off', verdict: verdict('dangerous', [guessed]), sessionApprovals: new Set([guessed.key]) }))).toEqual({ action: 'run' });
  // A guess of a merely dangerous finding still runs with approvals off.
  expect(decideCommand(input({ mode: 'off', verdict: verdict('dangerous', [rule('D02', 'dangerous')]) }))).toEqual({ action: 'run' });
});

test('a user deny rule blocks even with mode off, and names the rule', () => {
  const decision = decideCommand(input({ mode: 'off', deniedBy: 'curl * | sh', verdict: verdict('safe', []) }));
  expect(decision).toMatchObject({ action: 'block', kind: 'deny-rule' });
  expect(decision.action === 'block' && decision.message).toMatch(/deny rule 'curl \* \| sh'/);
});

test('safe and low-risk commands run without asking', () => {
  expect(decideCommand(input({ verdict: verdict('safe', []) }))).toEqual({ action: 'run' });
  expect(decideCommand(input({ verdict: verdict('low_risk', [rule('L01', 'low_risk')]) }))).toEqual({ action: 'run' });
});

test('dangerous commands ask, offering "always" only for a single simple command', () => {
  expect(decideCommand(input({}))).toEqual({ action: 'ask', description: 'rule D02', keys: ['D02:x'], allowAlways: true });
  expect(decideCommand(input({ verdict: verdict('dangerous', [rule('D02', 'dangerous')], true) }))).toMatchObject({ allowAlways: false });
  expect(decideCommand(input({ command: 'rm -rf a\nls' }))).toMatchObject({ allowAlways: false });
});

test('a command that cannot be understood is never treated as safe', () => {
  expect(decideCommand(input({ command: 'e"cho', verdict: verdict('unknown', []) }))).toMatchObject({
    action: 'ask',
    keys: ['U00:e"cho'],
    description: 'command could not be fully analysed',
  });
});

test('session approvals and the allowlist cover exactly their keys', () => {
  const two = verdict('dangerous', [rule('D02', 'dangerous', 'D02:rm -f -r build'), rule('D07', 'dangerous', 'D07:chmod 777 x')]);
  expect(decideCommand(input({ verdict: two, sessionApprovals: new Set(['D02:rm -f -r build']) }))).toMatchObject({ action: 'ask', keys: ['D07:chmod 777 x'] });
  expect(decideCommand(input({ verdict: two, sessionApprovals: new Set(['D02:rm -f -r build']), allowlist: new Set(['D07:chmod 777 x']) }))).toEqual({ action: 'run' });
  expect(decideCommand(input({ command: 'rm -rf build', allowlist: new Set(['rm -rf build']) }))).toEqual({ action: 'run' });
});

test('a rule whose command reads its targets at run time is approved for its own call only, never always', () => {
  const open = verdict('dangerous', [{ ...rule('D38', 'dangerous', 'D38:rm -f -r @ ~/p'), once: true }]);
  const first = decideCommand({ ...input({ verdict: open }), callNonce: 'n1' });
  expect(first).toMatchObject({ action: 'ask', allowAlways: false });
  const firstKeys = first.action === 'ask' ? first.keys : [];
  // A session answer to the first call adds its keys; the next call with the same words is asked again.
  const next = decideCommand({ ...input({ verdict: open, sessionApprovals: new Set(firstKeys), allowlist: new Set(firstKeys) }), callNonce: 'n2' });
  expect(next).toMatchObject({ action: 'ask' });
  expect(decideCommand({ ...input({ verdict: open, sessionApprovals: new Set(['D38:rm -f -r @ ~/p']) }), callNonce: 'n3' })).toMatchObject({ action: 'ask' });
});

test('unattended sessions decide at once by their policy', () => {
  const blocked = decideCommand(input({ surface: 'unattended' }));
  expect(blocked).toMatchObject({ action: 'block', kind: 'unattended' });
  expect(blocked.action === 'block' && blocked.message).toMatch(/Find an alternative approach/);
  expect(decideCommand(input({ surface: 'unattended', unattendedPolicy: 'approve' }))).toMatchObject({ action: 'run', note: expect.stringMatching(/unattended policy/) as unknown });
});

test('smart mode sends dangerous commands to review first', () => {
  expect(decideCommand(input({ mode: 'smart' }))).toMatchObject({ action: 'smart-review', keys: ['D02:x'] });
});

test('a call whose arguments could not be read is left to the tool to report', () => {
  expect(decideCommand({ ...input({}), assessment: { isolated: false } })).toEqual({ action: 'run' });
});
