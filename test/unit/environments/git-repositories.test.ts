// Finding repositories the way git does (a .git folder, a .git file's pointer, a commondir), the
// bounded look for nested ones, and what a session's end disarms: only repositories it made.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { checkRepositories, disarmNewNestedRepositories, disarmRepository, gitGuardArguments, gitObeyedPathsIn, guardRepositories } from '../../../src/environments/git-control';
import { findNestedRepositories, gitDirectoryOf, hasForeignCommonDirectory, repositoryDirectories } from '../../../src/environments/git-repositories';
import { startSwapping } from '../../helpers/folder-swapper';
import { tempDir } from '../../helpers/temp-dirs';

const gitInit = (directory: string, ...extra: string[]) => execFileSync('git', ['init', '-q', ...extra, directory]);
const setFsmonitor = (directory: string) => execFileSync('git', ['-C', directory, 'config', 'core.fsmonitor', './payload.sh']);

test('a .git folder, a .git file and a linked worktree lead to the folder git uses', () => {
  const workspace = realpathSync(tempDir());
  gitInit(path.join(workspace, 'plain'));
  expect(gitDirectoryOf(path.join(workspace, 'plain'))).toBe(path.join(workspace, 'plain', '.git'));
  mkdirSync(path.join(workspace, 'separate', '.cache'), { recursive: true });
  gitInit(path.join(workspace, 'separate'), '--separate-git-dir', path.join(workspace, 'separate', '.cache', 'gd'));
  expect(gitDirectoryOf(path.join(workspace, 'separate'))).toBe(path.join(workspace, 'separate', '.cache', 'gd'));
  execFileSync('git', ['-C', path.join(workspace, 'plain'), '-c', 'user.name=a', '-c', 'user.email=a@b', 'commit', '-q', '--allow-empty', '-m', 'x']);
  execFileSync('git', ['-C', path.join(workspace, 'plain'), 'worktree', 'add', '-q', path.join(workspace, 'wt')]);
  const linked = gitDirectoryOf(path.join(workspace, 'wt'))!;
  expect(hasForeignCommonDirectory(linked)).toBe(false);
  // Its own folder and the common one are both guarded.
  expect(repositoryDirectories(workspace, [path.join(workspace, 'wt')])).toEqual([path.join(workspace, 'plain', '.git'), linked]);
  writeFileSync(path.join(workspace, 'plain', '.git', 'commondir'), '../../separate/.cache/gd\n');
  expect(hasForeignCommonDirectory(path.join(workspace, 'plain', '.git'))).toBe(true);
});

test('the look for nested repositories stops at its budget and says it did not see everything', () => {
  const workspace = realpathSync(tempDir());
  gitInit(path.join(workspace, 'a'));
  gitInit(path.join(workspace, 'group', 'b'));
  expect(findNestedRepositories(workspace)).toEqual({ workTrees: ['a', 'group/b'], complete: true });
  for (let index = 0; index < 200; index++) mkdirSync(path.join(workspace, `folder-${index}`));
  const cut = findNestedRepositories(workspace, 1000);
  expect(cut.complete).toBe(false);
});

test("a session's end disarms the nested repositories made since it started, not the user's own", () => {
  const workspace = realpathSync(tempDir());
  gitInit(path.join(workspace, 'users'));
  setFsmonitor(path.join(workspace, 'users'));
  // One the look at the start found: its repository folders are guarded.
  gitInit(path.join(workspace, 'known'));
  const since = Date.now() + 1;
  const later = Date.now() + 20;
  while (Date.now() < later) {
    // The new repository is born after the session started, at file-system clock granularity.
  }
  gitInit(path.join(workspace, 'made'));
  setFsmonitor(path.join(workspace, 'made'));
  // One made in the guarded .git/modules of a repository the session found: guarded only after it was planted.
  mkdirSync(path.join(workspace, 'known', '.git', 'modules'));
  gitInit(path.join(workspace, 'known', 'vendored'), '--separate-git-dir', path.join(workspace, 'known', '.git', 'modules', 'vendored'));
  setFsmonitor(path.join(workspace, 'known', 'vendored'));
  // The look at the start did not reach `users`: its birth, before the start, keeps it.
  const removed = disarmNewNestedRepositories(workspace, { workTrees: ['known'], complete: false, since });
  expect(removed.sort()).toEqual(['known/.git/modules/vendored: setting core.fsmonitor', 'made/.git: setting core.fsmonitor']);
  expect(readFileSync(path.join(workspace, 'users', '.git', 'config'), 'utf8')).toContain('fsmonitor');
  expect(readFileSync(path.join(workspace, 'made', '.git', 'config'), 'utf8')).not.toContain('fsmonitor');
});

test('the hooks folder core.hooksPath names is found where git would look, only inside the workspace', () => {
  const workspace = realpathSync(tempDir());
  const hooksPath = (value: string) => execFileSync('git', ['-C', workspace, 'config', 'core.hooksPath', value]);
  gitInit(workspace);
  expect(gitObeyedPathsIn(workspace, [workspace]).folders).toEqual([]);
  // Relative to the work tree, there or not.
  hooksPath('.husky/_');
  expect(gitObeyedPathsIn(workspace, [workspace]).folders).toEqual([path.join(workspace, '.husky', '_')]);
  // Through a link, where it really is.
  mkdirSync(path.join(workspace, 'tools', 'hooks'), { recursive: true });
  symlinkSync('tools', path.join(workspace, 'scripts'));
  hooksPath('scripts/hooks');
  expect(gitObeyedPathsIn(workspace, [workspace]).folders).toEqual([path.join(workspace, 'tools', 'hooks')]);
  // Outside the workspace commands cannot write it; the workspace itself must stay writable.
  hooksPath('/etc/git-hooks');
  expect(gitObeyedPathsIn(workspace, [workspace]).folders).toEqual([]);
  hooksPath('.');
  expect(gitObeyedPathsIn(workspace, [workspace]).folders).toEqual([]);
});

test('config files a repository includes and programs its command settings name in the workspace are found', () => {
  const workspace = realpathSync(tempDir());
  const set = (key: string, value: string) => execFileSync('git', ['-C', workspace, 'config', '--add', key, value]);
  gitInit(workspace);
  mkdirSync(path.join(workspace, 'scripts'));
  writeFileSync(path.join(workspace, 'scripts', 'diff.sh'), '#!/bin/sh\n');
  // Included relative to the including file (.git/config), whether it exists yet or not.
  set('include.path', '../.gitconfig-local');
  set('includeIf.onbranch:main.path', '/etc/gitconfig-main');
  set('alias.lint', '!./scripts/lint.sh --fix');
  set('diff.external', 'scripts/diff.sh --mode=./x');
  set('core.editor', 'vim');
  expect(gitObeyedPathsIn(workspace, [workspace]).files.sort()).toEqual([path.join(workspace, '.gitconfig-local'), path.join(workspace, 'scripts', 'diff.sh')]);
  // What the included file sets counts too.
  writeFileSync(path.join(workspace, '.gitconfig-local'), '[core]\n\thooksPath = .githooks\n');
  expect(gitObeyedPathsIn(workspace, [workspace]).folders).toEqual([path.join(workspace, '.githooks')]);
});

test('a configured path no mount point can be made for (under a file) is left alone, so commands still start', () => {
  const workspace = realpathSync(tempDir());
  gitInit(workspace);
  writeFileSync(path.join(workspace, 'README.md'), 'read me\n');
  execFileSync('git', ['-C', workspace, 'config', 'include.path', '../README.md/settings']);
  execFileSync('git', ['-C', workspace, 'config', 'core.hooksPath', 'README.md/hooks']);
  expect(gitGuardArguments(workspace, [workspace]).join(' ')).not.toContain('README.md');
});

test("disarming a repository whose hooks folder is a link removes the link, never what it leads to", () => {
  const workspace = realpathSync(tempDir());
  const secrets = realpathSync(tempDir());
  writeFileSync(path.join(secrets, 'id_ed25519'), 'key\n');
  mkdirSync(path.join(workspace, 'own-hooks'));
  writeFileSync(path.join(workspace, 'own-hooks', 'pre-commit'), '#!/bin/sh\n');
  gitInit(path.join(workspace, 'out'));
  gitInit(path.join(workspace, 'in'));
  for (const [repository, target] of [['out', secrets], ['in', path.join(workspace, 'own-hooks')]] as const) {
    rmSync(path.join(workspace, repository, '.git', 'hooks'), { recursive: true });
    symlinkSync(target, path.join(workspace, repository, '.git', 'hooks'));
  }
  expect(disarmRepository(workspace, path.join(workspace, 'out', '.git'), new Set())).toEqual(['out/.git: hooks (a link)']);
  expect(readFileSync(path.join(secrets, 'id_ed25519'), 'utf8')).toBe('key\n');
  // A link into the work tree goes too: git would run what the commands write there.
  expect(disarmRepository(workspace, path.join(workspace, 'in', '.git'), new Set())).toEqual(['in/.git: hooks (a link)']);
  expect(existsSync(path.join(workspace, 'in', '.git', 'hooks'))).toBe(false);
  expect(existsSync(path.join(workspace, 'own-hooks', 'pre-commit'))).toBe(true);
});

test('a folder among the hooks goes whole, a name in it that is no UTF-8 included', () => {
  const workspace = realpathSync(tempDir());
  gitInit(path.join(workspace, 'made'));
  const kit = path.join(workspace, 'made', '.git', 'hooks', 'kit');
  mkdirSync(path.join(kit, 'deeper'), { recursive: true });
  writeFileSync(Buffer.concat([Buffer.from(`${kit}/deeper/`), Buffer.from([0x6e, 0xff, 0xfe])]), '#!/bin/sh\n');
  expect(disarmRepository(workspace, path.join(workspace, 'made', '.git'), new Set())).toEqual(['made/.git: hook kit']);
  expect(existsSync(kit)).toBe(false);
});

test('disarming removes nothing outside the workspace when a folder in the hooks is swapped for a link while it removes', async () => {
  const workspace = realpathSync(tempDir());
  const home = realpathSync(tempDir());
  const names = Array.from({ length: 40 }, (_, index) => `precious-${index}`);
  for (const name of names) writeFileSync(path.join(home, name), 'precious');
  const hooks = path.join(workspace, 'made', '.git', 'hooks');
  let rounds = 0;
  for (let round = 0; round < 30; round++) {
    rmSync(path.join(workspace, 'made'), { recursive: true, force: true });
    gitInit(path.join(workspace, 'made'));
    // A folder among the hooks holding the same names as the home, and a link to the home; a
    // script of the model's swaps the two while the disarm step removes the folder.
    mkdirSync(path.join(hooks, 'kit', 'inner'), { recursive: true });
    for (const name of names) writeFileSync(path.join(hooks, 'kit', 'inner', name), 'made by the session');
    symlinkSync(home, path.join(hooks, 'kit', 'inner-alt'));
    const { started, stop } = startSwapping(path.join(hooks, 'kit', 'inner'), path.join(hooks, 'kit', 'inner-alt'));
    try {
      await started;
      if (disarmRepository(workspace, path.join(workspace, 'made', '.git'), new Set()).includes('made/.git: hook kit')) rounds++;
    } finally {
      await stop();
    }
    expect(readdirSync(home).sort()).toEqual([...names].sort());
  }
  expect(rounds).toBeGreaterThan(5);
}, 60_000);

test("removing a planted commondir removes none outside the workspace when a folder above it is swapped for a link meanwhile", async () => {
  const workspace = realpathSync(tempDir());
  const outside = realpathSync(tempDir());
  gitInit(path.join(workspace, 'sub'));
  gitInit(path.join(outside, 'sub'));
  const guard = guardRepositories(workspace, [workspace, path.join(workspace, 'sub')]);
  symlinkSync(path.join(outside, 'sub'), path.join(workspace, 'sub-alt'));
  const { started, stop } = startSwapping(path.join(workspace, 'sub'), path.join(workspace, 'sub-alt'));
  let rounds = 0;
  try {
    await started;
    for (let round = 0; round < 200; round++) {
      // The same redirect on both sides, so that the look finds one whichever side it sees.
      for (const side of [path.join(outside, 'sub', '.git'), path.join(workspace, 'sub-alt', '.git'), path.join(workspace, 'sub', '.git')]) {
        writeFileSync(path.join(side, 'commondir'), 'hooks\n');
      }
      if (checkRepositories(guard).some((removed) => removed.endsWith('file commondir'))) rounds++;
      expect(existsSync(path.join(outside, 'sub', '.git', 'commondir'))).toBe(true);
    }
  } finally {
    await stop();
  }
  expect(rounds).toBeGreaterThan(5);
}, 60_000);

test("disarming a repository edits no config a link leads to: a folder above it or the config itself", () => {
  const workspace = realpathSync(tempDir());
  const home = realpathSync(tempDir());
  // The user's own git config, with settings the disarm step would take out of a repository's.
  mkdirSync(path.join(home, 'git'));
  const userConfig = '[alias]\n\tst = !git status\n[core]\n\tfsmonitor = true\n';
  writeFileSync(path.join(home, 'git', 'config'), userConfig);
  gitInit(path.join(workspace, 'linked'));
  // A folder above a repository (`modules/git`) swapped for a link to the home after it was found...
  symlinkSync(home, path.join(workspace, 'modules'));
  expect(disarmRepository(workspace, path.join(workspace, 'modules', 'git'), new Set())).toEqual([]);
  // ...and a repository's config that is a link to the user's: only the link goes.
  rmSync(path.join(workspace, 'linked', '.git', 'config'));
  symlinkSync(path.join(home, 'git', 'config'), path.join(workspace, 'linked', '.git', 'config'));
  expect(disarmRepository(workspace, path.join(workspace, 'linked', '.git'), new Set())).toEqual(['linked/.git: config (a link)']);
  expect(readFileSync(path.join(home, 'git', 'config'), 'utf8')).toBe(userConfig);
  // A real config is still disarmed, through the folder opened below the workspace.
  gitInit(path.join(workspace, 'plain'));
  setFsmonitor(path.join(workspace, 'plain'));
  expect(disarmRepository(workspace, path.join(workspace, 'plain', '.git'), new Set())).toEqual(['plain/.git: setting core.fsmonitor']);
  expect(readFileSync(path.join(workspace, 'plain', '.git', 'config'), 'utf8')).not.toContain('fsmonitor');
});

test('the guard mounts only repository folders and control files named by their real path inside the workspace', () => {
  const home = realpathSync(tempDir());
  const workspace = path.join(home, 'project');
  mkdirSync(path.join(home, 'precious', 'thesis'), { recursive: true });
  gitInit(workspace);
  // .git/modules made a link to the home: its folders are not the repository's.
  rmSync(path.join(workspace, '.git', 'modules'), { recursive: true, force: true });
  symlinkSync('../..', path.join(workspace, '.git', 'modules'));
  expect(repositoryDirectories(workspace, [workspace])).toEqual([path.join(workspace, '.git')]);
  // A control file that is a link is made read-only where it leads, only inside the workspace.
  writeFileSync(path.join(workspace, 'shared.config'), '');
  rmSync(path.join(workspace, '.git', 'config'));
  symlinkSync('../shared.config', path.join(workspace, '.git', 'config'));
  rmSync(path.join(workspace, '.git', 'hooks'), { recursive: true });
  symlinkSync(path.join(home, 'precious'), path.join(workspace, '.git', 'hooks'));
  const args = gitGuardArguments(workspace, [workspace]);
  expect(args.join(' ')).toContain(`--ro-bind ${path.join(workspace, 'shared.config')} ${path.join(workspace, 'shared.config')}`);
  expect(args.join(' ')).not.toContain(path.join(workspace, '.git', 'config'));
  expect(args.join(' ')).not.toContain('precious');
});
