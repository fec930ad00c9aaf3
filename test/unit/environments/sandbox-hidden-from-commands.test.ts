// The file-tool gate asks LocalSandbox what a command cannot see. Its answer must match what a
// real sandboxed command sees: a path it calls visible is the host's file inside the sandbox, and
// one it calls hidden is not there (or not the host's).
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LocalEnvironment } from '../../../src/environments/local-environment';
import { DEFAULT_SANDBOX_SETTINGS, LocalSandbox } from '../../../src/environments/local-sandbox';
import { PACKAGE_CONFIG_FILES } from '../../../src/environments/package-config-guard';

let dir: string;
let workspace: string;
let hostTemporary: string;
const savedHome = process.env.HOME;

beforeEach(() => {
  // Outside the temp folder, which commands get a private one of.
  const parent = path.resolve(__dirname, '../../../.tmp/test-dirs');
  mkdirSync(parent, { recursive: true });
  dir = realpathSync(mkdtempSync(path.join(parent, 'hermes-hidden-test-')));
  workspace = path.join(dir, 'workspace');
  mkdirSync(path.join(dir, 'home', '.ssh'), { recursive: true });
  mkdirSync(workspace);
  process.env.HOME = path.join(dir, 'home');
  hostTemporary = path.join(os.tmpdir(), `krb5cc_hidden_test_${randomBytes(4).toString('hex')}`);
});

afterEach(() => {
  process.env.HOME = savedHome;
  rmSync(dir, { recursive: true, force: true });
  rmSync(hostTemporary, { force: true });
});

/** What a sandboxed command reads at `file`: its content, or undefined when it cannot. */
async function readInSandbox(sandbox: LocalSandbox, file: string): Promise<string | undefined> {
  const environment = new LocalEnvironment({ backend: 'local', cwd: workspace, sessionId: `hidden-test-${path.basename(dir)}` }, { killGraceMs: 500, sandbox });
  const { output, exitCode } = await environment.exec({ command: `base64 -w0 < '${file}'`, timeoutMs: 20_000 });
  return exitCode === 0 ? Buffer.from(output.trim(), 'base64').toString('utf8') : undefined;
}

test('what hiddenFromCommands calls hidden, a sandboxed command cannot read as the host has it, and what it calls visible it can', async () => {
  const configuredHidden = path.join(workspace, 'deploy.key');
  const sandbox = new LocalSandbox({
    ...DEFAULT_SANDBOX_SETTINGS,
    hiddenPaths: [configuredHidden],
    workspaceHiddenNames: [...PACKAGE_CONFIG_FILES],
  });
  const files: Record<string, boolean> = {
    [path.join(workspace, 'notes.md')]: false,
    [path.join(dir, 'home', '.gitconfig')]: false,
    [configuredHidden]: true,
    [path.join(workspace, '.npmrc')]: true,
    [path.join(dir, 'home', '.ssh', 'id_ed25519')]: true,
    [hostTemporary]: true,
  };
  for (const file of Object.keys(files)) writeFileSync(file, `content of ${file}\n`);
  const hidden = sandbox.hiddenFromCommands(workspace);
  for (const [file, expectedHidden] of Object.entries(files)) {
    expect({ file, hidden: hidden(file) }).toEqual({ file, hidden: expectedHidden });
    const seen = await readInSandbox(sandbox, file);
    expect({ file, sameAsHost: seen === readFileSync(file, 'utf8') }).toEqual({ file, sameAsHost: !expectedHidden });
  }
});

test("the host's runtime folders and other processes are hidden; the system and the workspace in the temp folder are not", () => {
  const sandbox = new LocalSandbox(DEFAULT_SANDBOX_SETTINGS);
  const hidden = sandbox.hiddenFromCommands(workspace);
  for (const target of ['/run/secrets/db_password', '/var/tmp/x', '/dev/shm/x', `/proc/${process.pid}/fd`, `/proc/${process.pid}`, os.tmpdir()]) {
    expect({ target, hidden: hidden(target) }).toEqual({ target, hidden: true });
  }
  for (const target of ['/etc/hostname', '/usr/bin/env', '/proc/cpuinfo', workspace]) expect({ target, hidden: hidden(target) }).toEqual({ target, hidden: false });
  // A workspace in the temp folder is bound into the sandbox: it shows.
  const inTemporary = mkdtempSync(path.join(os.tmpdir(), 'hermes-hidden-ws-'));
  try {
    expect(sandbox.hiddenFromCommands(inTemporary)(path.join(inTemporary, 'src', 'a.ts'))).toBe(false);
  } finally {
    rmSync(inTemporary, { recursive: true, force: true });
  }
});

test('what is hidden deep in the workspace stays hidden after a command renames or removes the folders above it', async () => {
  // A workspace that is the home folder: its nested secrets (.config/gh) are hidden like a configured path.
  const home = path.join(dir, 'home');
  workspace = home;
  const configured = path.join(home, 'app', 'config', 'master.key');
  const files = { [configured]: 'rails-master-canary', [path.join(home, '.config', 'gh', 'hosts.yml')]: 'gh-token-canary' };
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, `${content}\n`);
  }
  const sandbox = new LocalSandbox({ ...DEFAULT_SANDBOX_SETTINGS, hiddenPaths: [configured] });
  const environment = new LocalEnvironment({ backend: 'local', cwd: home, sessionId: `hidden-test-${path.basename(dir)}` }, { killGraceMs: 500, sandbox });
  const run = async (command: string) => (await environment.exec({ command, timeoutMs: 20_000 })).output;
  // Ordinary work in those folders goes on.
  expect(await run('touch app/config/new.yml .config/x && rm app/config/new.yml .config/x && echo worked')).toContain('worked');
  await run('mv app/config app/cfg; mv app a2; mv .config .c2; mv .config/gh .config/g2; rm -rf app/config .config/gh; true');
  const later = await run('cat app/config/master.key app/cfg/master.key a2/cfg/master.key a2/config/master.key .config/gh/hosts.yml .config/g2/hosts.yml .c2/gh/hosts.yml; true');
  for (const canary of Object.values(files)) expect(later).not.toContain(canary);
  for (const [file, content] of Object.entries(files)) expect(readFileSync(file, 'utf8')).toBe(`${content}\n`);
});
