// The policy for what file tools and process input touch: protected writes and secret reads ask,
// keyed by the exact resolved path; sandboxes contain only their own files; hardline stays hardline.
import type { CommandAssessment, PathFinding } from '../../../src/approval-signals/approval-types';
import { decideCommand, type PolicyInput } from '../../../src/approval-signals/policy';
import { isProtectedWritePath, isSecretReadPath, searchReachesSecrets } from '../../../src/approval-signals/protected-paths';

const home = '/home/u';
const finding = (overrides: Partial<PathFinding> = {}): PathFinding => ({
  access: 'write',
  path: 'keys.txt',
  resolved: '/home/u/.ssh/authorized_keys',
  shown: '~/.ssh/authorized_keys',
  risk: 'write to a protected file (through a symbolic link: keys.txt)',
  contained: false,
  ...overrides,
});

function input(assessment: Partial<CommandAssessment>, overrides: Partial<PolicyInput> = {}): PolicyInput {
  return {
    assessment: { isolated: false, tool: 'write_file', ...assessment },
    mode: 'manual',
    surface: 'async',
    unattendedPolicy: 'deny',
    sessionApprovals: new Set(),
    allowlist: new Set(),
    ...overrides,
  };
}

test('a protected write asks with the path as people write it, and may be allowed always (one exact path)', () => {
  expect(decideCommand(input({ paths: [finding()] }))).toEqual({
    action: 'ask',
    description: 'write to a protected file (through a symbolic link: keys.txt): ~/.ssh/authorized_keys',
    keys: ['PATHW:/home/u/.ssh/authorized_keys'],
    allowAlways: true,
  });
});

test('a session approval of one path covers that path only, for that access only', () => {
  const approved = new Set(['PATHW:/home/u/.ssh/authorized_keys']);
  expect(decideCommand(input({ paths: [finding()] }, { sessionApprovals: approved }))).toEqual({ action: 'run' });
  const other = finding({ resolved: '/home/u/.ssh/config', shown: '~/.ssh/config' });
  expect(decideCommand(input({ paths: [other] }, { sessionApprovals: approved }))).toMatchObject({ action: 'ask', keys: ['PATHW:/home/u/.ssh/config'] });
  const read = finding({ access: 'read', risk: 'read of a secret file' });
  expect(decideCommand(input({ paths: [read] }, { sessionApprovals: approved }))).toMatchObject({ action: 'ask', keys: ['PATHR:/home/u/.ssh/authorized_keys'] });
});

test('paths without a risk run; a sandbox contains its own files but never the worker host', () => {
  expect(decideCommand(input({ paths: [finding({ risk: undefined })] }))).toEqual({ action: 'run' });
  expect(decideCommand(input({ isolated: true, paths: [finding({ contained: true })] }))).toEqual({ action: 'run' });
  expect(decideCommand(input({ isolated: true, paths: [finding({ contained: false })] }))).toMatchObject({ action: 'ask' });
});

test('a raw device write is hardline in every mode; mode off lets other protected writes run', () => {
  const device = finding({ resolved: '/dev/sda', risk: 'write to a raw disk device', hardline: true });
  expect(decideCommand(input({ paths: [device] }, { mode: 'off' }))).toMatchObject({ action: 'block', kind: 'hardline' });
  expect(decideCommand(input({ paths: [finding()] }, { mode: 'off' }))).toEqual({ action: 'run' });
});

test('unattended sessions block protected writes by default; smart mode reviews them first', () => {
  expect(decideCommand(input({ paths: [finding()] }, { surface: 'unattended' }))).toMatchObject({ action: 'block', kind: 'unattended' });
  expect(decideCommand(input({ paths: [finding()] }, { mode: 'smart' }))).toMatchObject({ action: 'smart-review' });
});

test('a call that could not be assessed waits for a human and is never allowed always', () => {
  expect(decideCommand(input({ display: 'write_file x', problem: 'could not tell where x leads (EACCES)' }))).toEqual({
    action: 'ask',
    description: 'could not tell where x leads (EACCES)',
    keys: ['PROBLEM:write_file x'],
    allowAlways: false,
  });
});

test('partial input typed into a shell asks, even when the fragment looks harmless', () => {
  const assessment = {
    tool: 'process',
    command: 'rm -r',
    verdict: { tier: 'safe' as const, rules: [], commands: [], compound: false },
    processInput: { processId: 'proc_1', program: 'bash', interprets: true, partial: true },
  };
  expect(decideCommand(input(assessment))).toMatchObject({ action: 'ask', allowAlways: false, description: expect.stringMatching(/partial line into bash/) as unknown });
});

test.each([
  ['/home/u/.ssh/authorized_keys', true],
  ['/home/u/.bashrc', true],
  ['/home/u/.aws/credentials', true],
  ['/etc/hosts', true],
  ['/work/hermes-temporal.yaml', true],
  ['/hh/approver/alice.pub', true],
  ['/hh/sessions.db-wal', true],
  ['/work/src/index.ts', false],
  ['/tmp/out.txt', false],
])('protected write %s: %s', (target, expected) => {
  expect(isProtectedWritePath(target, { home, workspaceRoot: '/work', protectedFiles: ['/work/hermes-temporal.yaml', '/hh/approver/', '/hh/sessions.db-wal'] })).toBe(expected);
});

test.each([
  ['/home/u/.ssh/id_ed25519', true],
  ['/home/u/.hermes-temporal/config.yaml', true],
  ['/etc/shadow', true],
  ['/proc/self/environ', true],
  ['/etc/hosts', false],
  ['/work/README.md', false],
])('secret read %s: %s', (target, expected) => {
  expect(isSecretReadPath(target, home)).toBe(expected);
});

test('a search reaches secrets inside a secret folder, or from the home folder or above, but not from the workspace', () => {
  expect(searchReachesSecrets('/home/u/.ssh', home, [])).toBe(true);
  expect(searchReachesSecrets('/home/u', home, [])).toBe(true);
  expect(searchReachesSecrets('/', home, [])).toBe(true);
  expect(searchReachesSecrets('/hh', home, ['/hh/config.yaml'])).toBe(true);
  expect(searchReachesSecrets('/home/u/project', home, ['/hh/config.yaml'])).toBe(false);
});
