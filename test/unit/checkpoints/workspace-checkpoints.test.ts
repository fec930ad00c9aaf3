// Checkpoints of a workspace a model wrote: taken and rolled back byte for byte, bounded, and
// with git outside the sandbox obeying nothing the workspace (or the environment) says.
import childProcess, { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { listCheckpoints } from '../../../src/checkpoints/checkpoint-list';
import { rollbackWorkspace, type RollbackResult } from '../../../src/checkpoints/rollback';
import { shadowRepositoryFor } from '../../../src/checkpoints/shadow-repository';
import { refOf, type CheckpointLimits, type SnapshotOutcome } from '../../../src/checkpoints/snapshot';
import { takeCheckpoint } from '../../../src/checkpoints/take-checkpoint';
import { createTurnCheckpoints } from '../../../src/checkpoints/turn-checkpoints';
import { silentLogger } from '../../../src/logging';
import { smallSpawner } from '../../../src/environments/small-spawner';
import { longestStallDuring } from '../../helpers/event-loop-stall';
import { startSwapping } from '../../helpers/folder-swapper';
import { tempDir } from '../../helpers/temp-dirs';

const LIMITS: CheckpointLimits = { maxFiles: 1000, maxFileBytes: 1024 * 1024, timeoutMs: 20_000, keep: 50, maxGitBytes: 64 * 1024 * 1024 };
const BY_TOOL = { sessionId: 'session-1', turn: 3, toolCallId: 'call-1', tool: 'terminal', reason: 'tool_call' as const };

let home: string;
let workspace: string;
const savedEnvironment = { ...process.env };

beforeEach(() => {
  home = tempDir('checkpoint-home-');
  workspace = tempDir('checkpoint-workspace-');
});

afterEach(() => {
  for (const name of Object.keys(process.env)) if (!(name in savedEnvironment)) delete process.env[name];
  Object.assign(process.env, savedEnvironment);
});

function write(relative: string, content: string | Buffer, mode?: number): void {
  const file = path.join(workspace, relative);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
  if (mode !== undefined) chmodSync(file, mode);
}

async function checkpoint(limits = LIMITS): Promise<SnapshotOutcome> {
  return takeCheckpoint(shadowRepositoryFor(home, workspace), BY_TOOL, limits);
}

async function taken(limits = LIMITS) {
  const outcome = await checkpoint(limits);
  if (outcome.kind !== 'taken') throw new Error(`expected a checkpoint, got ${JSON.stringify(outcome)}`);
  return outcome.checkpoint;
}

/** Every file under the workspace (links as `-> target`), with its bytes in hex and its mode. */
function contents(root = workspace): Record<string, string> {
  const found: Record<string, string> = {};
  const visit = (directory: string) => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const full = path.join(directory, entry.name);
      const name = path.relative(root, full);
      if (entry.isSymbolicLink()) found[name] = `-> ${readlinkSync(full)}`;
      else if (entry.isDirectory()) visit(full);
      else found[name] = `${(statSync(full).mode & 0o777).toString(8)} ${readFileSync(full).toString('hex')}`;
    }
  };
  visit(root);
  return found;
}

test('a rollback brings deleted and changed files back byte for byte and removes files made since', rollsBackByteForByte);

test('a big worker whose small helper could not start spawns git itself, and all works the same', async () => {
  const big = jest.spyOn(smallSpawner, 'worthwhile').mockReturnValue(true);
  const helperRuns = jest.spyOn(smallSpawner, 'run').mockReturnValue(undefined);
  const spawns = jest.spyOn(childProcess, 'spawn');
  try {
    await rollsBackByteForByte();
    expect(helperRuns).toHaveBeenCalled();
    expect(spawns.mock.calls.filter(([file]) => path.basename(file) === 'git').length).toBeGreaterThan(10);
  } finally {
    big.mockRestore();
    helperRuns.mockRestore();
    spawns.mockRestore();
  }
});

test("a big worker's snapshots start git from the small helper, never by forking itself (slow, and its event loop, every session's, stands still meanwhile)", async () => {
  const big = jest.spyOn(smallSpawner, 'worthwhile').mockReturnValue(true);
  write('a.txt', 'one');
  await taken();
  const spawns = jest.spyOn(childProcess, 'spawn');
  const helperRuns = jest.spyOn(smallSpawner, 'run');
  try {
    write('a.txt', 'two');
    expect(await taken()).toMatchObject({ id: 2, changed: { modified: 1 } });
    expect(spawns).not.toHaveBeenCalled();
    const subcommands = helperRuns.mock.calls.map(([, args]) => args.find((arg, index) => arg !== '-c' && args[index - 1] !== '-c'));
    expect(subcommands).toEqual(expect.arrayContaining(['ls-files', 'update-index', 'write-tree', 'commit-tree', 'update-ref']));
  } finally {
    spawns.mockRestore();
    helperRuns.mockRestore();
    big.mockRestore();
  }
});

test('an unchanged workspace is checked with three git runs: the index and tree it left are remembered', async () => {
  write('a.txt', 'one');
  write('src/b.txt', 'two');
  await taken();
  const spawns = jest.spyOn(childProcess, 'spawn');
  const helperRuns = jest.spyOn(smallSpawner, 'run');
  try {
    expect(await checkpoint()).toMatchObject({ kind: 'unchanged', latest: { id: 1 } });
    const gitArgs = [...helperRuns.mock.calls.map(([, args]) => args), ...spawns.mock.calls.map(([, args]) => args ?? [])];
    expect(gitArgs.map((args) => args.find((arg, index) => arg !== '-c' && args[index - 1] !== '-c'))).toEqual(['ls-files', 'update-index', 'for-each-ref']);
  } finally {
    spawns.mockRestore();
    helperRuns.mockRestore();
  }
});

test('an index changed by someone else since (another worker, a rollback) is read again, and the checkpoint is right', async () => {
  write('a.txt', 'one');
  const first = await taken();
  const repository = shadowRepositoryFor(home, workspace);
  // Another worker's snapshot took b.txt into the index meanwhile (and its file went again).
  write('b.txt', 'two');
  execFileSync('git', ['update-index', '--add', 'b.txt'], { cwd: workspace, env: { ...process.env, GIT_DIR: repository.gitDirectory, GIT_WORK_TREE: workspace } });
  rmSync(path.join(workspace, 'b.txt'));
  expect(await checkpoint()).toMatchObject({ kind: 'unchanged', latest: { id: 1 }, tree: first.tree });
  write('c.txt', 'three');
  expect(await taken()).toMatchObject({ id: 2, changed: { added: 1, modified: 0, deleted: 0, files: ['c.txt'] } });
});

async function rollsBackByteForByte(): Promise<void> {
  write('src/main.py', 'print("hello")\n');
  write('src/tool.sh', '#!/bin/sh\necho run\n', 0o755);
  write('data/blob.bin', Buffer.from([0, 1, 2, 255, 13, 10, 13, 0]));
  write('notes.txt', 'mixed\nline\r\nendings\r');
  const before = contents();
  const first = await taken();
  expect(first).toMatchObject({ id: 1, sessionId: 'session-1', turn: 3, toolCallId: 'call-1', tool: 'terminal', changed: { added: 4, modified: 0, deleted: 0 } });

  // What a model's own script may do, unseen by the approval gate.
  rmSync(path.join(workspace, 'src'), { recursive: true });
  write('notes.txt', 'overwritten');
  write('new/junk.txt', 'made since');

  const result = await rollbackWorkspace(shadowRepositoryFor(home, workspace), first, { sessionId: 'operator', limits: LIMITS });
  expect(contents()).toEqual(before);
  expect(result.restored.sort()).toEqual(['notes.txt', 'src/main.py', 'src/tool.sh']);
  expect(result.removed).toEqual(['new/junk.txt']);
  expect(existsSync(path.join(workspace, 'new'))).toBe(false);
  // The rollback itself is a checkpoint away from being undone.
  expect(result.undo).toMatchObject({ id: 2, reason: 'rollback', changed: { added: 1, modified: 1, deleted: 2 } });
  await rollbackWorkspace(shadowRepositoryFor(home, workspace), result.undo, { sessionId: 'operator', limits: LIMITS });
  expect(readFileSync(path.join(workspace, 'new/junk.txt'), 'utf8')).toBe('made since');
  expect(existsSync(path.join(workspace, 'src'))).toBe(false);
}

test('an unchanged workspace adds no checkpoint; a change adds one naming what changed', async () => {
  write('a.txt', 'one');
  await taken();
  expect(await checkpoint()).toMatchObject({ kind: 'unchanged', latest: { id: 1 } });
  write('a.txt', 'two');
  write('b.txt', 'new');
  expect(await taken()).toMatchObject({ id: 2, changed: { added: 1, modified: 1, deleted: 0, files: ['a.txt', 'b.txt'] } });
});

test('a rollback of one path leaves the rest of the workspace as it is', async () => {
  write('keep/a.txt', 'a1');
  write('other.txt', 'o1');
  const first = await taken();
  write('keep/a.txt', 'a2');
  write('keep/b.txt', 'b2');
  write('other.txt', 'o2');
  const result = await rollbackWorkspace(shadowRepositoryFor(home, workspace), first, { scope: 'keep', sessionId: 'operator', limits: LIMITS });
  expect(result).toMatchObject({ restored: ['keep/a.txt'], removed: ['keep/b.txt'] });
  expect(readFileSync(path.join(workspace, 'keep/a.txt'), 'utf8')).toBe('a1');
  expect(readFileSync(path.join(workspace, 'other.txt'), 'utf8')).toBe('o2');
  await expect(rollbackWorkspace(shadowRepositoryFor(home, workspace), first, { scope: '../elsewhere', sessionId: 'operator', limits: LIMITS })).rejects.toThrow('not inside the workspace');
});

test("git obeys nothing of the workspace's or the environment's: no filter, hook or fsmonitor runs, no conversion happens", async () => {
  const marker = path.join(tempDir('checkpoint-marker-'), 'ran');
  const run = `touch ${marker}; cat`;
  // The workspace's own repository, armed.
  execFileSync('git', ['init', '-q', workspace]);
  execFileSync('git', ['config', 'core.fsmonitor', `touch ${marker}; false`], { cwd: workspace });
  execFileSync('git', ['config', 'filter.evil.clean', run], { cwd: workspace });
  execFileSync('git', ['config', 'filter.evil.smudge', run], { cwd: workspace });
  for (const hook of ['post-index-change', 'post-checkout', 'pre-commit', 'reference-transaction']) {
    write(`.git/hooks/${hook}`, `#!/bin/sh\ntouch ${marker}\n`, 0o755);
  }
  // A user's git config (git-lfs installs a filter just like this one), and config in variables.
  const userHome = tempDir('checkpoint-user-home-');
  writeFileSync(path.join(userHome, '.gitconfig'), `[filter "evil"]\n\tclean = ${run}\n\tsmudge = ${run}\n[core]\n\tfsmonitor = touch ${marker}; false\n\thooksPath = ${path.join(workspace, '.git/hooks')}\n`);
  process.env.HOME = userHome;
  process.env.XDG_CONFIG_HOME = userHome;
  process.env.GIT_CONFIG_GLOBAL = path.join(userHome, '.gitconfig');
  process.env.GIT_CONFIG_COUNT = '1';
  process.env.GIT_CONFIG_KEY_0 = 'filter.evil.clean';
  process.env.GIT_CONFIG_VALUE_0 = run;
  process.env.GIT_CONFIG_PARAMETERS = `'core.fsmonitor'='touch ${marker}; false'`;
  // Any GIT_* variable of the worker would count: this one only writes a file.
  process.env.GIT_TRACE = marker;
  // Every file through the filter, with line endings turned to CRLF on the way out.
  write('.gitattributes', '* filter=evil text eol=crlf working-tree-encoding=UTF-16\n');
  write('code.txt', 'lf only\nand a lone cr\r');
  const before = contents();

  const first = await taken();
  write('code.txt', 'changed');
  await rollbackWorkspace(shadowRepositoryFor(home, workspace), first, { sessionId: 'operator', limits: LIMITS });

  expect(existsSync(marker)).toBe(false);
  const { '.git/index': _index, ...restored } = contents();
  const { '.git/index': _indexBefore, ...original } = before;
  expect(restored).toEqual(original);
  // The workspace's repository is not the shadow one, and was neither read nor written.
  expect(execFileSync('git', ['status', '--porcelain'], { cwd: workspace, env: savedEnvironment }).toString()).toContain('code.txt');
});

test('a link to /etc is kept as a link; a rollback never writes through a link put in a folder\'s place', async () => {
  const outside = tempDir('checkpoint-outside-');
  symlinkSync('/etc', path.join(workspace, 'etc-link'));
  write('src/a.txt', 'mine');
  const first = await taken();
  // Only the link itself: nothing under /etc was listed or read.
  expect(first.changed.files.sort()).toEqual(['etc-link', 'src/a.txt']);
  rmSync(path.join(workspace, 'src'), { recursive: true });
  symlinkSync(outside, path.join(workspace, 'src'));

  await rollbackWorkspace(shadowRepositoryFor(home, workspace), first, { sessionId: 'operator', limits: LIMITS });
  expect(readdirSync(outside)).toEqual([]);
  expect(lstatSync(path.join(workspace, 'src')).isDirectory()).toBe(true);
  expect(readFileSync(path.join(workspace, 'src/a.txt'), 'utf8')).toBe('mine');
  expect(readlinkSync(path.join(workspace, 'etc-link'))).toBe('/etc');
});

test('a file over the size cap is left out; the others are kept', async () => {
  write('big.bin', Buffer.alloc(2048, 7));
  write('small.txt', 'kept');
  const first = await taken({ ...LIMITS, maxFileBytes: 1024 });
  expect(first).toMatchObject({ leftOut: 1, changed: { added: 1, files: ['small.txt'] } });
  rmSync(path.join(workspace, 'small.txt'));
  const result = await rollbackWorkspace(shadowRepositoryFor(home, workspace), first, { sessionId: 'operator', limits: { ...LIMITS, maxFileBytes: 1024 } });
  expect(result.restored).toEqual(['small.txt']);
  expect(statSync(path.join(workspace, 'big.bin')).size).toBe(2048);
});

test('more files than the cap: no checkpoint, a reason instead, and git stopped early', async () => {
  for (let index = 0; index < 60; index++) write(`many/f${index}.txt`, String(index));
  write('node_modules/pkg/index.js', 'excluded folders do not count');
  expect(await checkpoint({ ...LIMITS, maxFiles: 50 })).toMatchObject({ kind: 'skipped', reason: expect.stringContaining('more than 50 files') });
  expect(await listCheckpoints(shadowRepositoryFor(home, workspace), 5000)).toEqual([]);
  expect(await checkpoint({ ...LIMITS, maxFiles: 60 })).toMatchObject({ kind: 'taken', checkpoint: { changed: { added: 60 } } });
});

test("only the newest `keep` checkpoints stay, besides the session's starting point, and what they hold survives compaction", async () => {
  for (let index = 0; index < 11; index++) {
    write('counter.txt', String(index));
    await taken({ ...LIMITS, keep: 3 });
  }
  const kept = await listCheckpoints(shadowRepositoryFor(home, workspace), 5000);
  expect(kept.map((entry) => entry.id)).toEqual([1, 9, 10, 11]);
  await rollbackWorkspace(shadowRepositoryFor(home, workspace), kept[1]!, { sessionId: 'operator', limits: { ...LIMITS, keep: 3 } });
  expect(readFileSync(path.join(workspace, 'counter.txt'), 'utf8')).toBe('8');
  await rollbackWorkspace(shadowRepositoryFor(home, workspace), kept[0]!, { sessionId: 'operator', limits: { ...LIMITS, keep: 3 } });
  expect(readFileSync(path.join(workspace, 'counter.txt'), 'utf8')).toBe('0');
});

test("sub-agents' changes do not push out their session's starting point, and only the newest `keep` sessions keep theirs", async () => {
  const limits = { ...LIMITS, keep: 2 };
  const by = (sessionId: string) => takeCheckpoint(shadowRepositoryFor(home, workspace), { ...BY_TOOL, sessionId }, limits);
  write('work.txt', 'the user\'s');
  await by('root');
  for (let index = 0; index < 6; index++) {
    write('counter.txt', String(index));
    await by(index % 2 ? 'root-sa0' : 'root-sa1-sa0');
  }
  const ids = async () => (await listCheckpoints(shadowRepositoryFor(home, workspace), 5000)).map((entry) => `${entry.id}:${entry.sessionId}`);
  expect(await ids()).toEqual(['1:root', '6:root-sa1-sa0', '7:root-sa0']);
  // Three more sessions, each changing once: only the two newest starting points stay, beside the newest two checkpoints.
  for (const session of ['second', 'third', 'fourth']) {
    write('counter.txt', session);
    await by(session);
  }
  expect(await ids()).toEqual(['9:third', '10:fourth']);
});

test('a session that finds the workspace as the last checkpoint left it records that as its starting point', async () => {
  const by = (sessionId: string) => takeCheckpoint(shadowRepositoryFor(home, workspace), { ...BY_TOOL, sessionId }, LIMITS);
  write('work.txt', 'as left');
  expect(await by('earlier')).toMatchObject({ kind: 'taken', checkpoint: { id: 1 } });
  expect(await by('later')).toMatchObject({ kind: 'taken', checkpoint: { id: 2, sessionId: 'later', changed: { added: 0, modified: 0, deleted: 0 } } });
  // Its own sub-agent's and its next turn's unchanged snapshots are no new starting points.
  expect(await by('later-sa0')).toMatchObject({ kind: 'unchanged', latest: { id: 2 } });
  expect(await by('later')).toMatchObject({ kind: 'unchanged', latest: { id: 2 } });
});

test('snapshots of one workspace run one at a time: concurrent calls give one checkpoint', async () => {
  write('a.txt', 'a');
  const outcomes = await Promise.all([checkpoint(), checkpoint(), checkpoint()]);
  expect(outcomes.map((outcome) => outcome.kind).sort()).toEqual(['taken', 'unchanged', 'unchanged']);
});

test('a turn is checkpointed once, before its first change; the next turn again', async () => {
  const beforeChange = createTurnCheckpoints({ ...LIMITS, enabled: true, home }, silentLogger);
  const call = { sessionId: 'session-1', turn: 1, toolCallId: 'call-1', tool: 'write_file', workspace };
  write('a.txt', 'a');
  const [first, second] = await Promise.all([beforeChange(call), beforeChange({ ...call, toolCallId: 'call-2' })]);
  expect(first).toMatchObject({ kind: 'taken' });
  expect(second).toBe(first);
  write('a.txt', 'changed by the turn');
  expect(await beforeChange({ ...call, toolCallId: 'call-3' })).toBe(first);
  expect(await beforeChange({ ...call, turn: 2, toolCallId: 'call-4' })).toMatchObject({ kind: 'taken', checkpoint: { id: 2, turn: 2, toolCallId: 'call-4' } });
  const disabled = createTurnCheckpoints({ ...LIMITS, enabled: false, home }, silentLogger);
  expect(await disabled({ ...call, turn: 3 })).toBeUndefined();
});

test('a workspace holding the hermes home gets no checkpoints (they would hold themselves)', async () => {
  const beforeChange = createTurnCheckpoints({ ...LIMITS, enabled: true, home: path.join(workspace, '.hermes-temporal') }, silentLogger);
  write('a.txt', 'a');
  expect(await beforeChange({ sessionId: 'session-1', turn: 1, toolCallId: 'call-1', tool: 'write_file', workspace })).toMatchObject({ kind: 'skipped', reason: expect.stringContaining('holds the hermes home') });
  expect(existsSync(path.join(workspace, '.hermes-temporal'))).toBe(false);
});

test("what was planted in the shadow repository itself (its config, attributes, hooks) is not obeyed", async () => {
  const marker = path.join(tempDir('checkpoint-marker-'), 'ran');
  write('a.txt', 'a');
  const first = await taken();
  const { gitDirectory } = shadowRepositoryFor(home, workspace);
  writeFileSync(path.join(gitDirectory, 'config'), `[filter "evil"]\n\tclean = touch ${marker}; cat\n\tsmudge = touch ${marker}; cat\n[core]\n\tfsmonitor = touch ${marker}; false\n`);
  writeFileSync(path.join(gitDirectory, 'info', 'attributes'), '* filter=evil\n');
  mkdirSync(path.join(gitDirectory, 'hooks'), { recursive: true });
  writeFileSync(path.join(gitDirectory, 'hooks', 'post-index-change'), `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 });
  write('a.txt', 'changed');
  await taken();
  await rollbackWorkspace(shadowRepositoryFor(home, workspace), first, { sessionId: 'operator', limits: LIMITS });
  expect(readFileSync(path.join(workspace, 'a.txt'), 'utf8')).toBe('a');
  expect(existsSync(marker)).toBe(false);
});

test("a snapshot waits for another one's lock at most its timeout, and breaks a lock its holder left long ago", async () => {
  write('a.txt', 'a');
  const { gitDirectory } = shadowRepositoryFor(home, workspace);
  mkdirSync(gitDirectory, { recursive: true });
  const lock = path.join(gitDirectory, 'hermes-checkpoint.lock');
  writeFileSync(lock, '12345');
  const started = Date.now();
  expect(await checkpoint({ ...LIMITS, timeoutMs: 400 })).toMatchObject({ kind: 'skipped', reason: expect.stringContaining('another snapshot') });
  expect(Date.now() - started).toBeLessThan(3000);
  // Older than any snapshot could take: its holder died. The snapshot gets 5 s (400 ms could skip it
  // on a loaded machine); a lock still obeyed would skip it too.
  const longAgo = new Date(Date.now() - 60_000);
  utimesSync(lock, longAgo, longAgo);
  expect(await checkpoint({ ...LIMITS, timeoutMs: 5_000 })).toMatchObject({ kind: 'taken' });
  expect(existsSync(lock)).toBe(false);
});

test('a rollback removes nothing outside the workspace when a folder is swapped for a link while it removes', async () => {
  const outside = tempDir('checkpoint-outside-');
  const names = Array.from({ length: 40 }, (_, index) => `precious-${index}`);
  for (const name of names) writeFileSync(path.join(outside, name), 'precious');
  write('keep.txt', 'kept');
  const target = await taken();
  let rounds = 0;
  // Until enough rollbacks ran through a swap (a busy machine makes git stop more often), bounded.
  for (let round = 0; round < 90 && rounds <= 5; round++) {
    // A folder holding the same names as the one outside, and a link to that; a rollback to a
    // checkpoint without them removes them while a script swaps the two.
    for (const made of ['d', 'd-alt']) rmSync(path.join(workspace, made), { recursive: true, force: true });
    write('d/x', '');
    for (const name of names) write(`d/${name}`, 'made since');
    symlinkSync(outside, path.join(workspace, 'd-alt'));
    const { started, stop } = startSwapping(path.join(workspace, 'd'), path.join(workspace, 'd-alt'));
    try {
      await started;
      // git may find a name changed type under it and stop: then nothing is removed at all.
      await rollbackWorkspace(shadowRepositoryFor(home, workspace), target, { sessionId: 'operator', limits: LIMITS }).then(
        () => rounds++,
        (error: Error) => expect(`${error.name}: ${error.message}`).toMatch(/^ShadowGitError/),
      );
    } finally {
      await stop();
    }
    expect(readdirSync(outside).sort()).toEqual([...names].sort());
  }
  expect(rounds).toBeGreaterThan(5);
}, 180_000);

test('a rollback writes nothing outside the workspace when a folder is swapped for a link while it writes back', async () => {
  const outside = tempDir('checkpoint-outside-');
  const names = Array.from({ length: 40 }, (_, index) => `precious-${index}`);
  const failures: string[] = [];
  for (let round = 0; round < 30; round++) {
    for (const made of ['d', 'd-alt']) rmSync(path.join(workspace, made), { recursive: true, force: true });
    for (const name of readdirSync(outside)) rmSync(path.join(outside, name), { recursive: true, force: true });
    for (const name of names) writeFileSync(path.join(outside, name), 'precious');
    // The checkpoint holds a folder of the same names as the one outside, and a link to that; a
    // rollback to it writes them back while a script swaps the two.
    for (const name of names) write(`d/${name}`, `checkpoint ${round}`);
    symlinkSync(outside, path.join(workspace, 'd-alt'));
    const target = await taken();
    for (const name of names) write(`d/${name}`, 'made since');
    // From the moment the rollback has checkpointed the state before it: while it writes back.
    const undoRef = path.join(shadowRepositoryFor(home, workspace).gitDirectory, refOf(target.id + 1));
    const { started, stop } = startSwapping(path.join(workspace, 'd'), path.join(workspace, 'd-alt'), undoRef);
    let outcome: RollbackResult | Error;
    try {
      await started;
      outcome = await rollbackWorkspace(shadowRepositoryFor(home, workspace), target, { sessionId: 'operator', limits: LIMITS }).catch((error: Error) => error);
    } finally {
      await stop();
    }
    expect(readdirSync(outside).sort()).toEqual([...names].sort());
    for (const name of names) expect(lstatSync(path.join(outside, name)).isFile() && readFileSync(path.join(outside, name), 'utf8')).toBe('precious');
    // Each file is either written back or listed as not.
    if (outcome instanceof Error) failures.push(outcome.message);
    else expect([...outcome.restored, ...outcome.skipped].sort()).toEqual(names.map((name) => `d/${name}`).sort());
  }
  // No git reads or writes the work tree once the swaps start: no rollback fails.
  expect(failures).toEqual([]);
}, 60_000);

test('a snapshot holds nothing from outside the workspace when a folder is swapped for a link while it is taken', async () => {
  const outside = tempDir('checkpoint-outside-');
  // Same names and sizes inside and outside: only the bytes tell them apart.
  for (let index = 0; index < 100; index++) {
    writeFileSync(path.join(outside, `s${index}`), `SECRET-${String(index).padStart(4, '0')}`);
    write(`d/s${index}`, `inside-${String(index).padStart(4, '0')}`);
  }
  symlinkSync(outside, path.join(workspace, 'd-alt'));
  const repository = shadowRepositoryFor(home, workspace);
  const { started, stop } = startSwapping(path.join(workspace, 'd'), path.join(workspace, 'd-alt'));
  let snapshots = 0;
  try {
    await started;
    for (let round = 0; round < 30; round++) {
      // git may find a name changed type under it and stop: then there is no checkpoint at all.
      await takeCheckpoint(repository, BY_TOOL, LIMITS).then(
        () => snapshots++,
        (error: Error) => expect(error.name).toBe('ShadowGitError'),
      );
    }
  } finally {
    await stop();
  }
  expect(snapshots).toBeGreaterThan(5);
  const blobs = execFileSync('git', ['rev-list', '--all', '--objects'], { env: { ...savedEnvironment, GIT_DIR: repository.gitDirectory }, maxBuffer: 64 << 20 })
    .toString('latin1').split('\n').map((line) => line.split(' ')[0]!).filter(Boolean);
  const held = execFileSync('git', ['cat-file', '--batch'], { input: `${blobs.join('\n')}\n`, env: { ...savedEnvironment, GIT_DIR: repository.gitDirectory }, maxBuffer: 64 << 20 }).toString('latin1');
  expect(held).toContain('inside-');
  expect(held).not.toContain('SECRET-');
}, 60_000);

test("a snapshot's second look at large files does not hold the worker's thread, which every session shares", async () => {
  // 150 files of 10 MB (sparse: cheap to make), each read again after git hashed it.
  for (let index = 0; index < 150; index++) write(`large/${index}.bin`, '');
  execFileSync('truncate', ['-s', '10M', ...Array.from({ length: 150 }, (_, index) => path.join(workspace, 'large', `${index}.bin`))]);
  const { value: outcome, longestStallMs } = await longestStallDuring(() => checkpoint({ ...LIMITS, maxFileBytes: 16 * 1024 * 1024, timeoutMs: 120_000 }));
  expect(outcome).toMatchObject({ kind: 'taken', checkpoint: { changed: { added: 150 } } });
  // Read whole at once, each file held it for its read and hash: 1.5 s in all here.
  expect(longestStallMs).toBeLessThan(300);
}, 180_000);
