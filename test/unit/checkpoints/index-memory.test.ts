// What a worker remembers of a shadow index is used only while the index is byte for byte the one
// it remembered: any change by anyone (another worker, a rollback) forgets it.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { indexIdentity, recallIndex, rememberIndex } from '../../../src/checkpoints/index-memory';
import { runShadowGit, type ShadowRepository } from '../../../src/checkpoints/shadow-git';
import { ensureShadowRepository, shadowRepositoryFor } from '../../../src/checkpoints/shadow-repository';
import { tempDir } from '../../helpers/temp-dirs';

let repository: ShadowRepository;
const git = (...args: string[]) => runShadowGit(repository, args, { timeoutMs: 20_000 });
const contents = { entries: new Map([['a.txt', '100644 0123']]), tree: 'tree-id' };

beforeEach(async () => {
  const workspace = tempDir('index-memory-workspace-');
  repository = shadowRepositoryFor(tempDir('index-memory-home-'), workspace);
  await ensureShadowRepository(repository, 20_000);
  writeFileSync(path.join(workspace, 'a.txt'), 'one');
  writeFileSync(path.join(workspace, 'b.txt'), 'two');
  await git('update-index', '--add', 'a.txt');
});

test('an index no one changed is recalled; one changed since is not', async () => {
  rememberIndex(repository, contents);
  expect(recallIndex(repository)).toBe(contents);
  await git('update-index', '--add', 'b.txt');
  expect(recallIndex(repository)).toBeUndefined();
});

test('an index changed and changed back to the same bytes is recalled (its identity is its content)', async () => {
  const before = indexIdentity(repository);
  rememberIndex(repository, contents);
  await git('update-index', '--chmod=+x', 'a.txt');
  expect(indexIdentity(repository)).not.toBe(before);
  await git('update-index', '--chmod=-x', 'a.txt');
  expect(indexIdentity(repository)).toBe(before);
  expect(recallIndex(repository)).toBe(contents);
});

test('an index written without its checksum (git 2.40+ with index.skipHash: zeros) is never recalled', () => {
  const index = path.join(repository.gitDirectory, 'index');
  const bytes = readFileSync(index);
  bytes.fill(0, bytes.length - 20);
  writeFileSync(index, bytes);
  expect(indexIdentity(repository)).toBeUndefined();
  rememberIndex(repository, contents);
  expect(recallIndex(repository)).toBeUndefined();
});

test('forgetting: nothing is recalled after remembering nothing, nor for another repository', async () => {
  rememberIndex(repository, contents);
  rememberIndex(repository, undefined);
  expect(recallIndex(repository)).toBeUndefined();
  rememberIndex(repository, contents);
  expect(recallIndex({ ...repository, gitDirectory: `${repository.gitDirectory}-other` })).toBeUndefined();
});
