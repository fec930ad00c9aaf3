// A file tool's paths are judged before it runs; the pinned workspace also judges what it
// opened, so a link the agent swaps in between cannot redirect a read or a write.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeRealFolders } from '../../../src/environments/folder-beneath';
import { LocalWorkspace } from '../../../src/environments/local-workspace';
import { expectReadsBoundedBySize, expectWalkBoundedByBytes, expectWalkBoundedByEntries } from '../../helpers/bounded-read-contract';
import { tempDir } from '../../helpers/temp-dirs';

let workspace: string;
let secrets: string;

beforeEach(() => {
  const root = realpathSync(tempDir('hermes-local-workspace-'));
  workspace = path.join(root, 'workspace');
  secrets = path.join(root, 'secrets');
  mkdirSync(path.join(workspace, 'docs'), { recursive: true });
  mkdirSync(secrets);
  writeFileSync(path.join(workspace, 'docs', 'readme.txt'), 'harmless\n');
  writeFileSync(path.join(secrets, 'readme.txt'), 'SECRET\n');
});

/** The gate checked `docs`; then the agent swaps the folder for a link to the secrets. */
function swapDocsForLink(): void {
  rmSync(path.join(workspace, 'docs'), { recursive: true });
  symlinkSync(secrets, path.join(workspace, 'docs'));
}

test('a read of a file swapped for a link after the check is refused', async () => {
  const checked = [path.join(workspace, 'docs', 'readme.txt')];
  const pinned = new LocalWorkspace(workspace).pinned(checked);
  expect((await pinned.readFile('docs/readme.txt')).toString()).toBe('harmless\n');
  swapDocsForLink();
  await expect(pinned.readFile('docs/readme.txt')).rejects.toThrow(/now leads to .*secrets\/readme\.txt, not to the path that was checked/);
  // Unpinned (no gate judged it), the workspace reads what the path names, as before.
  expect((await new LocalWorkspace(workspace).readFile('docs/readme.txt')).toString()).toBe('SECRET\n');
});

test('a search root checked as a folder admits the files inside it, and nothing a link leads out to', async () => {
  const pinned = new LocalWorkspace(workspace).pinned([workspace]);
  expect((await pinned.readFile('docs/readme.txt')).toString()).toBe('harmless\n');
  symlinkSync(path.join(secrets, 'readme.txt'), path.join(workspace, 'out.txt'));
  await expect(pinned.readFile('out.txt')).rejects.toThrow(/not to the path that was checked/);
});

test('a write lands where the gate judged it, and a folder swapped after the check gets nothing', async () => {
  const target = path.join(workspace, 'docs', 'notes.txt');
  const pinned = new LocalWorkspace(workspace).pinned([target]);
  swapDocsForLink();
  await expect(pinned.writeFile('docs/notes.txt', 'planted')).rejects.toThrow(/not to the path that was checked/);
  expect(existsSync(path.join(secrets, 'notes.txt'))).toBe(false);
  expect(execFileSync('ls', ['-A', secrets], { encoding: 'utf8' })).toBe('readme.txt\n');
});

test('a write into new folders under a folder swapped after the check makes no folder outside', async () => {
  const target = path.join(workspace, 'docs', 'new', 'deeper', 'notes.txt');
  const pinned = new LocalWorkspace(workspace).pinned([target]);
  swapDocsForLink();
  await expect(pinned.writeFile('docs/new/deeper/notes.txt', 'planted')).rejects.toThrow(/not to the path that was checked/);
  expect(execFileSync('ls', ['-A', secrets], { encoding: 'utf8' })).toBe('readme.txt\n');
});

test('folders are made one inside another, never through a link swapped in for one of them', () => {
  const resolved = path.join(workspace, 'docs', 'made', 'here');
  swapDocsForLink();
  expect(() => makeRealFolders(resolved)).toThrow(/docs is no longer a folder on that path/);
  expect(execFileSync('ls', ['-A', secrets], { encoding: 'utf8' })).toBe('readme.txt\n');
  makeRealFolders(path.join(workspace, 'fresh', 'a', 'b'));
  expect(existsSync(path.join(workspace, 'fresh', 'a', 'b'))).toBe(true);
  // Made already: nothing to do, no error.
  makeRealFolders(path.join(workspace, 'fresh', 'a'));
});

test('a pinned write through a link the gate followed writes the file it leads to, keeping its mode', async () => {
  writeFileSync(path.join(workspace, 'real.sh'), 'echo old\n', { mode: 0o755 });
  symlinkSync('real.sh', path.join(workspace, 'link.sh'));
  await new LocalWorkspace(workspace).pinned([path.join(workspace, 'real.sh')]).writeFile('link.sh', 'echo new\n');
  expect(readFileSync(path.join(workspace, 'real.sh'), 'utf8')).toBe('echo new\n');
  expect(execFileSync('stat', ['-c', '%a', path.join(workspace, 'real.sh')], { encoding: 'utf8' }).trim()).toBe('755');
});

test('a FIFO or a device is refused at once instead of holding a thread', async () => {
  execFileSync('mkfifo', [path.join(workspace, 'pipe')]);
  const started = Date.now();
  await expect(new LocalWorkspace(workspace).readFile('pipe')).rejects.toThrow(/not a regular file/);
  await expect(new LocalWorkspace(workspace).readFile('/dev/zero')).rejects.toThrow(/not a regular file/);
  expect(Date.now() - started).toBeLessThan(2000);
});

test('a read stops at the limit: a larger file, also a sparse one, is refused rather than held in memory', async () => {
  await expectReadsBoundedBySize(new LocalWorkspace(workspace), async (command) => execFileSync('bash', ['-c', command]), path.join(workspace, 'bounded'));
});

test('a walk reads a bounded number of directory entries, however many names a folder holds', async () => {
  await expectWalkBoundedByEntries(new LocalWorkspace(workspace), async (command) => execFileSync('bash', ['-c', command]), path.join(workspace, 'walk'));
});

test('a walk brings a bounded number of bytes of names to the worker, as on the shell-reached backends', async () => {
  await expectWalkBoundedByBytes(new LocalWorkspace(workspace), async (command) => execFileSync('bash', ['-c', command]), path.join(workspace, 'walk-bytes'));
});
