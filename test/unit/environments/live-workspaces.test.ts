// A session whose workspace holds another live session's (a workspace of the temp folder holds
// every session started in a temporary one) does not see or write that one.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { forgetLiveWorkspace, otherLiveWorkspacesWithin, recordLiveWorkspace } from '../../../src/environments/live-workspaces';
import { LocalEnvironment } from '../../../src/environments/local-environment';
import { DEFAULT_SANDBOX_SETTINGS, LocalSandbox } from '../../../src/environments/local-sandbox';
import { LIVE_WORKSPACES_FOLDER } from '../../../src/environments/runtime-temp-folders';

let dir: string;
let outer: string;
let inner: string;

beforeEach(() => {
  const parent = path.resolve(__dirname, '../../../.tmp/test-dirs');
  mkdirSync(parent, { recursive: true });
  dir = realpathSync(mkdtempSync(path.join(parent, 'hermes-live-ws-')));
  // The worker's temp folder, as a session started there (`run --cwd /tmp`) sees it.
  jest.spyOn(os, 'tmpdir').mockReturnValue(path.join(dir, 'tmp'));
  outer = path.join(dir, 'tmp');
  inner = path.join(outer, 'hermes-demo-abc');
  mkdirSync(inner, { recursive: true });
});

afterEach(() => {
  jest.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

test("another live session's workspace inside this one is found; its own family's, one outside, a dead worker's and a forgotten one are not", () => {
  recordLiveWorkspace('victim', inner);
  recordLiveWorkspace('outer-session', outer);
  recordLiveWorkspace('outer-session-sa1', path.join(outer, 'child'));
  expect(otherLiveWorkspacesWithin(outer, 'outer-session')).toEqual([inner]);
  // From the inner session, the outer one holds it: nothing of it lies inside.
  expect(otherLiveWorkspacesWithin(inner, 'victim')).toEqual([]);
  // A record whose worker is gone was left by a crash.
  writeFileSync(path.join(outer, LIVE_WORKSPACES_FOLDER, 'crashed'), JSON.stringify({ workspace: path.join(outer, 'old'), pid: 2 ** 22 + 1 }));
  expect(otherLiveWorkspacesWithin(outer, 'outer-session')).toEqual([inner]);
  expect(existsSync(path.join(outer, LIVE_WORKSPACES_FOLDER, 'crashed'))).toBe(false);
  forgetLiveWorkspace('victim');
  expect(otherLiveWorkspacesWithin(outer, 'outer-session')).toEqual([]);
});

test("a sandboxed command of a session in the temp folder can neither read nor write a live session's workspace there, and hiddenFromCommands says so", async () => {
  writeFileSync(path.join(inner, 'thesis.txt'), 'victim work\n');
  // A project of its own: the outer workspace's guard of nested repositories mounts there too.
  execFileSync('git', ['init', '-q'], { cwd: inner });
  const sandbox = new LocalSandbox({ ...DEFAULT_SANDBOX_SETTINGS });
  // The victim's environment records where it works, as any live local session's does.
  new LocalEnvironment({ backend: 'local', cwd: inner, sessionId: 'victim' }, { killGraceMs: 500, sandbox });
  const attacker = new LocalEnvironment({ backend: 'local', cwd: outer, sessionId: 'attacker' }, { killGraceMs: 500, sandbox });
  const { output } = await attacker.exec({ command: 'cat hermes-demo-abc/thesis.txt; echo gone > hermes-demo-abc/thesis.txt; rm -rf hermes-demo-abc/thesis.txt; echo tried', timeoutMs: 20_000 });
  expect(output).toContain('tried');
  expect(output).not.toContain('victim work');
  expect(readFileSync(path.join(inner, 'thesis.txt'), 'utf8')).toBe('victim work\n');
  expect(sandbox.hiddenFromCommands(outer, 'attacker')(path.join(inner, 'thesis.txt'))).toBe(true);
  // Once the victim session ended, its folder is the workspace's like any other.
  forgetLiveWorkspace('victim');
  await new Promise((resolve) => setTimeout(resolve, 2100));
  expect(sandbox.hiddenFromCommands(outer, 'attacker')(path.join(inner, 'thesis.txt'))).toBe(false);
  await attacker.exec({ command: 'rm hermes-demo-abc/thesis.txt', timeoutMs: 20_000 });
  expect(existsSync(path.join(inner, 'thesis.txt'))).toBe(false);
});
