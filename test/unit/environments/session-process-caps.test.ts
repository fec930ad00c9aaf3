// The local sandbox's per-session pids cgroups (as root): a session's group caps its commands,
// goes once the session is idle on this worker, stays while something runs in it, is made again
// by the launcher when another worker removed it, and leftovers of dead workers are swept.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LocalEnvironment } from '../../../src/environments/local-environment';
import { DEFAULT_SANDBOX_SETTINGS, LocalSandbox } from '../../../src/environments/local-sandbox';
import { removeSessionGroupsWhenEmpty, SESSION_GROUPS_ROOT, SessionProcessCaps } from '../../../src/environments/session-process-caps';
import { testNeeding } from '../../helpers/services';
import { waitFor } from '../../helpers/wait';

const MAX_PROCESSES = 40;
const groupsUsable = process.getuid?.() === 0 && existsSync(path.dirname(SESSION_GROUPS_ROOT));
const NEEDS = 'root and the cgroup v1 pids hierarchy at /sys/fs/cgroup/pids';

let workspace: string;
let sessionId: string;

beforeEach(() => {
  workspace = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'hermes-caps-test-')));
  sessionId = `caps-test-${path.basename(workspace)}`;
});

afterEach(() => {
  rmSync(workspace, { recursive: true, force: true });
});

function sessionWith(caps: SessionProcessCaps) {
  const sandbox = new LocalSandbox({ ...DEFAULT_SANDBOX_SETTINGS, maxProcesses: MAX_PROCESSES }, caps);
  return { sandbox, environment: new LocalEnvironment({ backend: 'local', cwd: workspace, sessionId }, { sandbox }) };
}

const readGroupFile = (caps: SessionProcessCaps, file: string) => `cat ${path.join(caps.directoryOf(sessionId), file)}`;

testNeeding(groupsUsable, NEEDS, 'puts a command in its session group, and removes the group once the session is idle here', async () => {
  const caps = new SessionProcessCaps(MAX_PROCESSES, 200);
  const { environment } = sessionWith(caps);
  // Read from inside: the group exists and caps the command while it runs.
  const result = await environment.exec({ command: readGroupFile(caps, 'pids.max'), timeoutMs: 20_000 });
  expect(result.output.trim()).toBe(String(MAX_PROCESSES));
  expect(caps.held()).toEqual([sessionId]);
  await waitFor(() => caps.held().length === 0 && !existsSync(caps.directoryOf(sessionId)), { timeoutMs: 5_000, what: 'the idle group to go' });
  // The next command makes it again.
  expect((await environment.exec({ command: readGroupFile(caps, 'pids.max'), timeoutMs: 20_000 })).output.trim()).toBe(String(MAX_PROCESSES));
  await caps.releaseAll();
});

testNeeding(groupsUsable, NEEDS, 'keeps the group while a command still runs in it, and removes it after', async () => {
  const caps = new SessionProcessCaps(MAX_PROCESSES, 200);
  const { environment } = sessionWith(caps);
  const running = environment.exec({ command: 'sleep 1.5; echo slept', timeoutMs: 20_000 });
  await new Promise((resolve) => setTimeout(resolve, 800));
  // Idle past its countdown, but busy: nobody can remove it.
  expect(caps.held()).toEqual([sessionId]);
  expect(existsSync(caps.directoryOf(sessionId))).toBe(true);
  expect((await running).output).toBe('slept\n');
  await waitFor(() => caps.held().length === 0 && !existsSync(caps.directoryOf(sessionId)), { timeoutMs: 5_000, what: 'the idle group to go' });
});

testNeeding(groupsUsable, NEEDS, 'makes the group again in the launcher when it went between planning and starting the command', async () => {
  const caps = new SessionProcessCaps(MAX_PROCESSES, 60_000);
  const { sandbox } = sessionWith(caps);
  const procs = path.join(caps.directoryOf(sessionId), 'cgroup.procs');
  const { file, args } = sandbox.command(`${readGroupFile(caps, 'pids.max')}; grep -c . ${procs}`, { workspace, cwd: workspace, sessionKey: sessionId });
  // Another worker's sweep, say, removed the empty group meanwhile.
  rmdirSync(caps.directoryOf(sessionId));
  const result = spawnSync(file, args, { encoding: 'utf8', timeout: 20_000 });
  expect(result.stdout.trim().split('\n')).toEqual([String(MAX_PROCESSES), expect.stringMatching(/^[1-9]\d*$/)]);
  await caps.releaseAll();
  expect(existsSync(caps.directoryOf(sessionId))).toBe(false);
});

testNeeding(groupsUsable, NEEDS, 'sweeps empty groups left by workers that died, and removes what it holds at shutdown', async () => {
  const leftover = path.join(SESSION_GROUPS_ROOT, `leftover-${process.pid}-${path.basename(workspace)}`);
  mkdirSync(leftover, { recursive: true });
  const caps = new SessionProcessCaps(MAX_PROCESSES, 60_000);
  const { environment } = sessionWith(caps);
  await environment.exec({ command: 'true', timeoutMs: 20_000 });
  expect(existsSync(leftover)).toBe(false);
  expect(readFileSync(path.join(caps.directoryOf(sessionId), 'pids.max'), 'utf8').trim()).toBe(String(MAX_PROCESSES));
  await caps.releaseAll();
  expect(caps.held()).toEqual([]);
  expect(existsSync(caps.directoryOf(sessionId))).toBe(false);
});

testNeeding(groupsUsable, NEEDS, 'a group released while a command is still in it goes once the command ends, not a whole idle period later', async () => {
  const caps = new SessionProcessCaps(MAX_PROCESSES, 60_000);
  const { environment } = sessionWith(caps);
  const running = environment.exec({ command: 'sleep 0.5', timeoutMs: 20_000 });
  await waitFor(() => readFileSync(path.join(caps.directoryOf(sessionId), 'cgroup.procs'), 'utf8').trim() !== '', { timeoutMs: 5_000, what: 'the command to join its group' });
  caps.release(sessionId);
  expect(existsSync(caps.directoryOf(sessionId))).toBe(true);
  await running;
  await waitFor(() => !existsSync(caps.directoryOf(sessionId)) && caps.held().length === 0, { timeoutMs: 5_000, what: 'the released group to go' });
});

testNeeding(groupsUsable, NEEDS, 'shutdown waits briefly for processes still exiting, then removes their group', async () => {
  const caps = new SessionProcessCaps(MAX_PROCESSES, 60_000);
  const { environment } = sessionWith(caps);
  const running = environment.exec({ command: 'sleep 0.3', timeoutMs: 20_000 });
  await waitFor(() => readFileSync(path.join(caps.directoryOf(sessionId), 'cgroup.procs'), 'utf8').trim() !== '', { timeoutMs: 5_000, what: 'the command to join its group' });
  await caps.releaseAll();
  expect(existsSync(caps.directoryOf(sessionId))).toBe(false);
  expect(caps.held()).toEqual([]);
  await running;
});

testNeeding(groupsUsable, NEEDS, 'a group still busy when shutdown stops waiting is removed once it empties, by a process that outlives this one', async () => {
  const caps = new SessionProcessCaps(MAX_PROCESSES, 60_000);
  const { environment } = sessionWith(caps);
  // Longer than the shutdown wait: the quitting process (run after a second Ctrl+C) is gone before it ends.
  const running = environment.exec({ command: 'sleep 2', timeoutMs: 20_000 });
  await waitFor(() => readFileSync(path.join(caps.directoryOf(sessionId), 'cgroup.procs'), 'utf8').trim() !== '', { timeoutMs: 5_000, what: 'the command to join its group' });
  await caps.releaseAll();
  expect(existsSync(caps.directoryOf(sessionId))).toBe(true);
  expect(caps.held()).toEqual([]);
  await running;
  await waitFor(() => !existsSync(caps.directoryOf(sessionId)), { timeoutMs: 5_000, what: 'the emptied group to go' });
});

test("a quitting run hands its session's and sub-agents' groups to a process of their own, which removes each once it empties", async () => {
  // Plain folders stand in for groups: rmdir fails on one that holds something, as on a busy group.
  const root = mkdtempSync(path.join(os.tmpdir(), 'hermes-groups-'));
  try {
    for (const name of ['abc', 'abc-sa0', 'abc-sa0-sa1', 'abcd', 'xabc']) mkdirSync(path.join(root, name));
    const busy = path.join(root, 'abc-sa0', 'cgroup.procs');
    mkdirSync(busy);
    removeSessionGroupsWhenEmpty('abc', root);
    await waitFor(() => !existsSync(path.join(root, 'abc')) && !existsSync(path.join(root, 'abc-sa0-sa1')), { timeoutMs: 5_000, what: 'the empty groups to go' });
    expect(existsSync(path.join(root, 'abc-sa0'))).toBe(true);
    rmdirSync(busy);
    await waitFor(() => !existsSync(path.join(root, 'abc-sa0')), { timeoutMs: 5_000, what: 'the emptied group to go' });
    // Other sessions' groups stay.
    expect(existsSync(path.join(root, 'abcd')) && existsSync(path.join(root, 'xabc'))).toBe(true);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
