// What foreground commands of dead workers leave in the temp folder (pid, log and cwd files) is
// swept once it is a day old; younger files, and the pid file of a command still running, stay.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { sweepStaleCommandFiles } from '../../../src/environments/local-environment';
import { BASELINE_FILE } from '../../../src/environments/package-config-guard';
import { waitFor } from '../../helpers/wait';

const DAY_AND_AN_HOUR_AGO = (Date.now() - 25 * 60 * 60 * 1000) / 1000;

function file(directory: string, name: string, content = '', old = true): string {
  mkdirSync(directory, { recursive: true });
  const target = path.join(directory, name);
  writeFileSync(target, content);
  if (old) utimesSync(target, DAY_AND_AN_HOUR_AGO, DAY_AND_AN_HOUR_AGO);
  return target;
}

test('stale pid, log and cwd files go; fresh ones and a running command\'s pid file stay', async () => {
  const commands = path.join(os.tmpdir(), 'hermes-commands');
  const id = `sweep-test-${randomUUID()}`;
  // A process whose command line carries the wrapper's marker, as a running command's does. In a
  // group of its own, so that its `sleep` dies with it and outlives no test run.
  const running = spawn('bash', ['-c', ': __hermes_exit; sleep 30; :'], { stdio: 'ignore', detached: true });
  await waitFor(() => readFileSync(`/proc/${running.pid}/cmdline`, 'utf8').includes('__hermes_exit'), { timeoutMs: 5000, what: 'the stand-in command to start' });
  let kept: string[] = [];
  try {
    const stale = [file(commands, `${id}-a.pid`, '999999999'), file(commands, `${id}-a.log`, 'output'), file(os.tmpdir(), `hermes-cwd-${id}`, '/work')];
    kept = [file(commands, `${id}-b.pid`, String(running.pid)), file(commands, `${id}-c.log`, 'young', false), file(os.tmpdir(), `hermes-cwd-${id}-young`, '', false)];
    expect(await sweepStaleCommandFiles()).toBeGreaterThanOrEqual(3);
    expect(stale.filter((target) => existsSync(target))).toEqual([]);
    expect(kept.filter((target) => existsSync(target))).toEqual(kept);
  } finally {
    process.kill(-running.pid!, 'SIGKILL');
    for (const target of kept) rmSync(target, { force: true });
  }
});

test("a day-old session state folder holding only its package-config baseline goes; one in use stays", async () => {
  const sessions = path.join(os.tmpdir(), 'hermes-bg');
  const id = `sweep-test-${randomUUID()}`;
  const over = path.join(sessions, `${id}-over`);
  const young = path.join(sessions, `${id}-young`);
  const busy = path.join(sessions, `${id}-busy`);
  try {
    file(over, BASELINE_FILE, '{}');
    file(young, BASELINE_FILE, '{}', false);
    file(busy, BASELINE_FILE, '{}');
    file(busy, 'proc_0123456789ab.json', '{}');
    await sweepStaleCommandFiles();
    expect([over, young, busy].map((directory) => existsSync(directory))).toEqual([false, true, true]);
  } finally {
    for (const directory of [over, young, busy]) rmSync(directory, { recursive: true, force: true });
  }
});
