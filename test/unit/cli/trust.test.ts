// `hermes-temporal trust` as a user runs it (the built CLI): a project file is refused until
// trusted, used once trusted, refused again after any change, and `trust` itself refuses keys
// the project file may never set.
import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CLI_ENTRY, requireBuild } from '../../helpers/cli';
import { tempDir } from '../../helpers/temp-dirs';

requireBuild();

function cli(cwd: string, home: string, args: string[]) {
  const result = spawnSync(process.execPath, [CLI_ENTRY, ...args], { cwd, env: { PATH: process.env.PATH, HOME: home, HERMES_TEMPORAL_HOME: path.join(home, 'hermes') }, encoding: 'utf8', timeout: 20_000 });
  return { code: result.status, out: result.stdout, err: result.stderr };
}

test('a project file counts only as trusted: new and changed files are refused, trust takes it as it is', () => {
  const root = tempDir('hermes-trust-');
  const [project, home] = [path.join(root, 'project'), path.join(root, 'home')];
  mkdirSync(project);
  mkdirSync(home);
  const file = path.join(project, 'hermes-temporal.yaml');
  writeFileSync(file, 'approvals:\n  deny:\n    - "ls *"\n');

  const refused = cli(project, home, ['check-command', 'ls x']);
  expect(refused.code).toBe(1);
  expect(refused.err).toContain(`${file} is not trusted yet`);

  const trusted = cli(project, home, ['trust']);
  expect(trusted.code).toBe(0);
  expect(trusted.out).toContain(`Trusted ${file} as it is now`);
  expect(trusted.out).toContain('  approvals:');
  const used = cli(project, home, ['check-command', 'ls x']);
  expect(used.code).toBe(0);
  expect(used.out).toContain("DENIED by approvals.deny rule 'ls *'");

  // What a session's own script could do to the file: the next command will not use it.
  writeFileSync(file, 'approvals:\n  mode: "off"\n');
  const changed = cli(project, home, ['check-command', 'ls x']);
  expect(changed.code).toBe(1);
  expect(changed.err).toContain(`${file} is changed since it was trusted`);
});

test('trust refuses a project file that sets what only the home config may, and names the key', () => {
  const root = tempDir('hermes-trust-');
  const [project, home] = [path.join(root, 'project'), path.join(root, 'home')];
  mkdirSync(project);
  mkdirSync(home);
  writeFileSync(path.join(project, 'hermes-temporal.yaml'), 'plugins:\n  project: true\n');
  const refused = cli(root, home, ['trust', project]);
  expect(refused.code).toBe(1);
  expect(refused.err).toMatch(/plugins: may not be set in the project file/);
  expect(cli(root, home, ['trust', path.join(root, 'missing')]).err).toMatch(/Only a project's hermes-temporal.yaml|nothing to trust/);
});

test('trust refuses a project file with a value or key every later command would refuse, names it, and trusts nothing', () => {
  const root = tempDir('hermes-trust-');
  const [project, home] = [path.join(root, 'project'), path.join(root, 'home')];
  mkdirSync(project);
  mkdirSync(home);
  const file = path.join(project, 'hermes-temporal.yaml');
  for (const [content, problem] of [
    ['approvals:\n  mode: sometimes\n', /approvals\.mode: .*\(from .*hermes-temporal\.yaml\)/],
    ['approvals:\n  timeout_seconds: -5\n', /approvals\.timeout_seconds: /],
    ['sesion:\n  max_turns: 3\n', /sesion: unknown key/],
  ] as const) {
    writeFileSync(file, content);
    const refused = cli(project, home, ['trust']);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(problem);
    expect(cli(project, home, ['check-command', 'ls x']).err).toContain(`${file} is not trusted yet`);
  }
  writeFileSync(file, 'approvals:\n  mode: smart\n');
  expect(cli(project, home, ['trust']).code).toBe(0);
});

test("a link to another folder's trusted project file is refused, and trust will not trust it", () => {
  const root = tempDir('hermes-trust-');
  const [scratch, project, home] = [path.join(root, 'scratch'), path.join(root, 'project'), path.join(root, 'home')];
  for (const folder of [scratch, project, home]) mkdirSync(folder);
  writeFileSync(path.join(scratch, 'hermes-temporal.yaml'), 'approvals:\n  deny:\n    - "ls *"\n');
  expect(cli(scratch, home, ['trust']).code).toBe(0);
  // What the agent's script in the project could run to borrow the scratch folder's trust.
  const file = path.join(project, 'hermes-temporal.yaml');
  symlinkSync(path.join('..', 'scratch', 'hermes-temporal.yaml'), file);

  const refused = cli(project, home, ['check-command', 'ls x']);
  expect(refused.code).toBe(1);
  expect(refused.err).toContain(`${file} is a symbolic link`);
  const notTrusted = cli(project, home, ['trust']);
  expect(notTrusted.code).toBe(1);
  expect(notTrusted.err).toContain(`${file} is a symbolic link`);
});
