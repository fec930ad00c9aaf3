// The one rule of what a sandboxed local command may read, on a made-up file system root: data
// folders hidden, the workspace, the homes' dot-entries, PATH folders and configured ones shown.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isShownInSandbox, pathFolders, programFolders, reachesHiddenData, readScope, readScopeMounts } from '../../../src/environments/sandbox-read-scope';

let root: string;
let home: string;
let workspace: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'read-scope-')));
  for (const folder of ['usr/bin', 'etc', 'opt/tool/bin', 'srv/site', 'work/main/.tmp/ws', 'work/other', 'home/me/.cargo/bin', 'home/me/go/bin', 'home/me/bin', 'home/me/projects/x', 'home/you/.ssh', 'var/www/app', 'var/lib']) {
    mkdirSync(path.join(root, folder), { recursive: true });
  }
  writeFileSync(path.join(root, 'work/other/.env'), 'KEY=1\n');
  writeFileSync(path.join(root, 'home/me/.gitconfig'), '[user]\n');
  symlinkSync(path.join(root, 'work/other'), path.join(root, 'home/me/.linked'));
  symlinkSync(path.join(root, 'work'), path.join(root, 'data'));
  home = path.join(root, 'home/me');
  workspace = path.join(root, 'work/main/.tmp/ws');
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

const scopeOf = (extra: { searchPath?: string; readPaths?: string[] } = {}) => readScope({ workspace, homes: [home], root, ...extra });

describe('readScope', () => {
  it('hides every top-level folder that is not the system, /home, the home and web roots; a link is not one', () => {
    const { dataRoots } = scopeOf();
    expect(dataRoots.sort()).toEqual(['home', 'srv', 'var/www', 'work'].map((folder) => path.join(root, folder)).sort());
  });

  it('shows the workspace, the system, the home dot-entries; hides its sibling projects, other folders of the home and other homes', () => {
    const scope = scopeOf();
    const shown = (relative: string) => isShownInSandbox(path.join(root, relative), scope);
    expect(shown('work/main/.tmp/ws/src.ts')).toBe(true);
    expect(shown('usr/bin/env')).toBe(true);
    expect(shown('var/lib/dpkg')).toBe(true);
    expect(shown('home/me/.cargo/bin/cargo')).toBe(true);
    expect(shown('work/other/.env')).toBe(false);
    expect(shown('work/main/package.json')).toBe(false);
    expect(shown('home/me/projects/x/.env')).toBe(false);
    expect(shown('home/you/.ssh/id_rsa')).toBe(false);
    expect(shown('srv/site/config.php')).toBe(false);
    expect(shown('var/www/app/.env')).toBe(false);
  });

  it('shows the PATH folders, the install prefix of a bin folder (not the home itself) and the configured folders', () => {
    const scope = scopeOf({ searchPath: ['go/bin', 'bin', '.cargo/bin'].map((folder) => path.join(home, folder)).join(':'), readPaths: [path.join(root, 'srv/site')] });
    const shown = (relative: string) => isShownInSandbox(path.join(root, relative), scope);
    expect(shown('home/me/go/pkg/mod/x.go')).toBe(true);
    expect(shown('home/me/bin/tool')).toBe(true);
    expect(shown('home/me/projects/x/.env')).toBe(false);
    expect(shown('srv/site/index.html')).toBe(true);
  });

  it('hides nothing when the workspace is the root, and no home when it is the workspace', () => {
    expect(readScope({ workspace: '/', homes: [home], root }).dataRoots).toEqual([]);
    expect(readScope({ workspace: home, homes: [home], root }).dataRoots).not.toContain(home);
  });
});

describe('reachesHiddenData', () => {
  it('is true for a folder holding a data root or a hidden folder, false for the workspace and the system', () => {
    const scope = scopeOf();
    expect(reachesHiddenData(path.join(root, 'work/main'), scope)).toBe(true);
    expect(reachesHiddenData(root, scope)).toBe(true);
    expect(reachesHiddenData(home, scope)).toBe(true);
    expect(reachesHiddenData(path.join(root, 'var'), scope)).toBe(true);
    expect(reachesHiddenData(workspace, scope)).toBe(false);
    expect(reachesHiddenData(path.join(root, 'usr'), scope)).toBe(false);
    expect(reachesHiddenData(path.join(home, '.cargo'), scope)).toBe(false);
  });
});

describe('pathFolders and programFolders', () => {
  it('takes no prefix that is a top-level folder, a home or another user home', () => {
    const folders = pathFolders([path.join(root, 'opt/tool/bin'), path.join(home, 'bin'), path.join(root, 'home/you/.ssh'), 'relative/bin'].join(':'), [home], root);
    expect(folders).toEqual([path.join(root, 'opt/tool/bin'), path.join(root, 'opt/tool'), path.join(home, 'bin'), path.join(root, 'home/you/.ssh')]);
    mkdirSync(path.join(root, 'home/you/bin'));
    expect(pathFolders(path.join(root, 'home/you/bin'), [home], root)).toEqual([path.join(root, 'home/you/bin')]);
  });

  it("shows a configured program's folder and the node_modules folders Node would look in", () => {
    mkdirSync(path.join(root, 'work/main/node_modules/server/dist'), { recursive: true });
    const script = path.join(root, 'work/main/node_modules/server/dist/index.js');
    writeFileSync(script, '');
    expect(programFolders(['/usr/bin/env', script, '--flag'], [home])).toEqual(['/usr/bin', path.dirname(script), path.join(root, 'work/main/node_modules')]);
  });
});

describe('readScopeMounts', () => {
  it('empties each data root, binds back the home dot-entries (a link as a link) and the shown folders, and seals the data roots last', () => {
    const scope = scopeOf({ searchPath: path.join(home, 'go/bin') });
    const { hide, seal, absent } = readScopeMounts(scope, { skipHomeEntries: new Set(['.gitconfig']), mountedElsewhere: [workspace] });
    const tmpfs = hide.flatMap((word, index) => (word === '--tmpfs' ? [hide[index + 1]] : []));
    expect(scope.dataRoots).toHaveLength(4);
    expect([...tmpfs].sort()).toEqual([...scope.dataRoots].sort());
    expect(hide.slice(0, 8).filter((word) => word === '--tmpfs')).toHaveLength(4);
    const text = hide.join(' ');
    expect(text).toContain(`--dir ${home}`);
    expect(text).toContain(`--ro-bind ${home}/.cargo ${home}/.cargo`);
    expect(text).toContain(`--symlink ${path.join(root, 'work/other')} ${home}/.linked`);
    expect(text).toContain(`--ro-bind ${home}/go ${home}/go`);
    expect(text).not.toContain(`${home}/projects`);
    expect(text).not.toContain(`${home}/.gitconfig`);
    expect(text).not.toContain(`--ro-bind ${workspace}`);
    expect(absent).toEqual([`${home}/.gitconfig`]);
    expect([...seal].sort()).toEqual(scope.dataRoots.flatMap((folder) => ['--remount-ro', folder]).sort());
  });

  it('binds an empty folder over a data root nothing shows in, and leaves an empty data root alone', () => {
    mkdirSync(path.join(root, 'mnt'));
    const scope = scopeOf();
    const empty = path.join(root, 'empty');
    const { hide, seal } = readScopeMounts(scope, { mountedElsewhere: [workspace], emptyFolder: empty });
    const text = hide.join(' ');
    expect(text).toContain(`--ro-bind ${empty} ${path.join(root, 'srv')}`);
    expect(text).toContain(`--ro-bind ${empty} ${path.join(root, 'var/www')}`);
    expect(text).toContain(`--tmpfs ${path.join(root, 'work')}`);
    expect(text).toContain(`--tmpfs ${path.join(root, 'home')}`);
    expect(text).not.toContain(path.join(root, 'mnt'));
    expect([...seal].sort()).toEqual(['--remount-ro', '--remount-ro', path.join(root, 'home'), path.join(root, 'work')]);
  });
});
