// `check-command` gives the gate's verdict on the local backend, links on disk included: a path
// is judged where it really leads (README, *Dangerous commands and approvals*), so a name that is
// a link to a start-up file, a private key or another folder is no longer safe or low-risk.
import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CLI_ENTRY, requireBuild } from '../../helpers/cli';
import { tempDir } from '../../helpers/temp-dirs';

requireBuild();

function setUp() {
  const root = tempDir('hermes-check-links-');
  const [home, work] = [path.join(root, 'home'), path.join(root, 'work')];
  mkdirSync(path.join(home, '.ssh'), { recursive: true });
  writeFileSync(path.join(home, '.bashrc'), '');
  writeFileSync(path.join(home, '.ssh', 'id_rsa'), 'key');
  mkdirSync(path.join(work, 'src'), { recursive: true });
  mkdirSync(path.join(work, 'dist'));
  const check = (args: string[], input?: string) => {
    const env = { PATH: process.env.PATH, HOME: home, HERMES_TEMPORAL_HOME: path.join(root, 'hermes') };
    const result = spawnSync(process.execPath, [CLI_ENTRY, 'check-command', '--cwd', work, ...args], { env, input, encoding: 'utf8', timeout: 20_000 });
    expect(result.stderr).toBe('');
    return result.stdout;
  };
  return { home, work, check };
}

test('a path that is a link is judged where it leads, as the gate judges it', () => {
  const { home, work, check } = setUp();
  // Real folders and files first: the names alone.
  writeFileSync(path.join(work, 'notes.md'), '');
  writeFileSync(path.join(work, 'data.txt'), '');
  mkdirSync(path.join(work, 'node_modules'));
  expect(JSON.parse(check(['--json', 'echo x >> notes.md'])).tier).toBe('safe');
  expect(JSON.parse(check(['--json', 'cat data.txt'])).tier).toBe('safe');
  expect(JSON.parse(check(['--json', 'rm -rf node_modules'])).tier).toBe('low_risk');

  const other = tempDir('hermes-check-links-work-');
  symlinkSync(path.join(home, '.bashrc'), path.join(other, 'notes.md'));
  symlinkSync(path.join(home, '.ssh', 'id_rsa'), path.join(other, 'data.txt'));
  symlinkSync(path.join(work, 'src'), path.join(other, 'node_modules'));
  const linked = (command: string) => {
    const env = { PATH: process.env.PATH, HOME: home, HERMES_TEMPORAL_HOME: path.join(home, 'hermes') };
    const result = spawnSync(process.execPath, [CLI_ENTRY, 'check-command', '--cwd', other, '--json', command], { env, encoding: 'utf8', timeout: 20_000 });
    return JSON.parse(result.stdout) as { tier: string; rules: { id: string; description: string }[] };
  };
  const write = linked('echo x >> notes.md');
  expect(write.tier).toBe('dangerous');
  expect(write.rules.map((rule) => rule.description).join('\n')).toContain('leads to ~/.bashrc');
  const read = linked('cat data.txt');
  expect(read.tier).toBe('dangerous');
  expect(read.rules.map((rule) => rule.description).join('\n')).toContain('leads to ~/.ssh/id_rsa');
  const remove = linked('rm -rf node_modules');
  expect(remove.tier).toBe('dangerous');
  expect(remove.rules.map((rule) => rule.id)).toEqual(['D02']);
});

test('--batch judges links too', () => {
  const { home, work, check } = setUp();
  symlinkSync(path.join(home, '.bashrc'), path.join(work, 'notes.md'));
  const lines = check(['--batch'], 'echo x >> notes.md\nls src\n').trim().split('\n').map((line) => JSON.parse(line) as { command: string; tier: string });
  expect(lines.map((line) => [line.command, line.tier])).toEqual([
    ['echo x >> notes.md', 'dangerous'],
    ['ls src', 'safe'],
  ]);
});
