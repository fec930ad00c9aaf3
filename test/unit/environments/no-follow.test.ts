// A walk's folders and files are opened without following links: one swapped for a link to a
// folder outside the search root, between the listing and the open, is not read.
import { execFileSync } from 'node:child_process';
import { mkdir, rename, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { listWithin, readWithin } from '../../../src/environments/no-follow';
import { tempDir } from '../../helpers/temp-dirs';

test('a folder swapped for a link to another place is not listed; the real folder is', async () => {
  const root = tempDir('hermes-no-follow-');
  const [inside, outside] = [path.join(root, 'search'), path.join(root, 'outside')];
  await mkdir(path.join(inside, 'sub'), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(inside, 'sub', 'plain.txt'), 'x');
  await writeFile(path.join(outside, 'secret.txt'), 'x');
  expect((await listWithin(path.join(inside, 'sub'), inside))?.map((entry) => entry.name)).toEqual(['plain.txt']);

  await rename(path.join(inside, 'sub'), path.join(root, 'moved'));
  await symlink(outside, path.join(inside, 'sub'));
  expect(await listWithin(path.join(inside, 'sub'), inside)).toBeNull();
  // A link higher up leads the path elsewhere too: the opened folder is judged by its real path.
  expect(await listWithin(path.join(inside, 'sub', '.'), inside)).toBeNull();
  expect(await readWithin(path.join(inside, 'sub', 'secret.txt'), inside, 1024)).toBeNull();
});

test('a FIFO (which would block the read) or a file over the size limit is not read', async () => {
  const root = tempDir('hermes-no-follow-');
  execFileSync('mkfifo', [path.join(root, 'pipe')]);
  expect(await readWithin(path.join(root, 'pipe'), root, 1024)).toBeNull();
  await writeFile(path.join(root, 'big.txt'), 'x'.repeat(2048));
  expect(await readWithin(path.join(root, 'big.txt'), root, 1024)).toBeNull();
  expect((await readWithin(path.join(root, 'big.txt'), root, 4096))?.content.length).toBe(2048);
});
