// Programs the worker runs outside the sandbox are found on a trusted PATH: never through a
// relative entry or a node_modules folder (where npx puts the workspace's package binaries), and
// never from inside the session's workspace.
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { findProgram, trustedDirectories } from '../../../src/environments/trusted-programs';
import type * as TrustedPrograms from '../../../src/environments/trusted-programs';
import { tempDir } from '../../helpers/temp-dirs';

function plant(directory: string, name: string): string {
  mkdirSync(directory, { recursive: true });
  const file = path.join(directory, name);
  writeFileSync(file, '#!/bin/sh\nexit 0\n');
  chmodSync(file, 0o755);
  return file;
}

/** A fresh copy of the module: it keeps what it found for the life of the process. */
function freshModule(): typeof TrustedPrograms {
  let loaded!: typeof TrustedPrograms;
  jest.isolateModules(() => {
    loaded = jest.requireActual('../../../src/environments/trusted-programs');
  });
  return loaded;
}

describe('the trusted search path', () => {
  it('drops relative entries, empty entries and node_modules folders, keeping the order of the rest', () => {
    const searchPath = ['.', '', 'node_modules/.bin', '/work/project/node_modules/.bin', '/work/node_modules/.bin/', '/usr/local/bin', '/usr/bin', '/usr/bin/'].join(':');
    expect(trustedDirectories(searchPath)).toEqual(['/usr/local/bin', '/usr/bin']);
  });

  it('falls back to the system folders when nothing in PATH is trustworthy', () => {
    expect(trustedDirectories('.:node_modules/.bin')).toContain('/usr/bin');
  });

  it('never finds a program planted in a node_modules/.bin or relative entry', () => {
    const workspace = tempDir();
    plant(path.join(workspace, 'node_modules', '.bin'), 'bwrap');
    const system = tempDir();
    const real = plant(system, 'bwrap');
    const searchPath = [path.join(workspace, 'node_modules', '.bin'), '.', system].join(':');
    expect(findProgram('bwrap', trustedDirectories(searchPath))).toBe(real);
  });
});

describe('trustedProgram', () => {
  const saved = process.env.PATH;
  afterEach(() => {
    process.env.PATH = saved;
  });

  it('skips the workspace node_modules/.bin npx puts first on PATH', () => {
    const workspace = tempDir();
    const planted = path.join(workspace, 'node_modules', '.bin');
    plant(planted, 'git');
    process.env.PATH = `${planted}:${saved}`;
    const { trustedProgram } = freshModule();
    const git = trustedProgram('git', { outside: [workspace] });
    expect(git).not.toContain(workspace);
    expect(path.isAbsolute(git)).toBe(true);
  });

  it('refuses, naming the path and why, a program found inside the workspace', () => {
    const workspace = tempDir();
    const planted = plant(path.join(workspace, 'bin'), 'git');
    process.env.PATH = `${path.join(workspace, 'bin')}:${saved}`;
    const { trustedProgram } = freshModule();
    expect(() => trustedProgram('git', { outside: [workspace] })).toThrow(`refusing to run ${planted} for 'git': it lies in the session's workspace ${workspace}`);
  });

  it('refuses a program whose link leads into the workspace', () => {
    const workspace = tempDir();
    const target = plant(path.join(workspace, 'tools'), 'real-git');
    const outside = tempDir();
    symlinkSync(target, path.join(outside, 'git'));
    process.env.PATH = `${outside}:${saved}`;
    const { trustedProgram } = freshModule();
    expect(() => trustedProgram('git', { outside: [workspace] })).toThrow(/refusing to run .* it lies in the session's workspace/);
  });

  it('uses a configured absolute path as given', () => {
    const { trustedProgram } = freshModule();
    expect(trustedProgram('/opt/bwrap/bin/bwrap', { outside: ['/opt'] })).toBe('/opt/bwrap/bin/bwrap');
  });

  it('says where it looked when a program is not found', () => {
    process.env.PATH = `./node_modules/.bin:${tempDir()}`;
    const { trustedProgram } = freshModule();
    expect(() => trustedProgram('no-such-program-anywhere')).toThrow(/'no-such-program-anywhere' was not found on PATH \(relative entries and node_modules folders/);
  });

  it('gives control scripts a PATH without the workspace', () => {
    const workspace = tempDir();
    process.env.PATH = ['.', path.join(workspace, 'node_modules', '.bin'), path.join(workspace, 'bin'), '/usr/bin', '/bin'].join(':');
    const { trustedSearchPath } = freshModule();
    expect(trustedSearchPath({ outside: [workspace] })).toBe('/usr/bin:/bin');
  });
});
