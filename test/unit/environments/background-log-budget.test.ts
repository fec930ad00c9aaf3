// The logs of a session's background processes share one budget in the host's temp folder: many
// processes printing without end cannot fill its disk. Each gets at most a share of what is left;
// past it, its output is dropped after a note in its log, and the process runs on.
import { mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { logBudgetNote } from '../../../src/environments/background/log-budget';
import { LocalEnvironment, localBackgroundStateDir, sessionKeyOf } from '../../../src/environments/local-environment';
import { waitFor } from '../../helpers/wait';

const MIB = 1024 * 1024;
let dir: string;
let environment: LocalEnvironment;

beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'hermes-log-budget-')));
  environment = new LocalEnvironment({ backend: 'local', cwd: dir, sessionId: `log-budget-${path.basename(dir)}` }, { backgroundLogTotalMb: 1, killGraceMs: 200 });
});

afterEach(async () => {
  await environment.stopBackground();
  rmSync(dir, { recursive: true, force: true });
});

test('six processes printing 2 MiB each keep at most the 1 MiB budget on disk, with a note, and keep running', async () => {
  const stateDir = localBackgroundStateDir(sessionKeyOf(environment.handle));
  const started = [];
  for (let index = 0; index < 6; index += 1) {
    // Prints past any share, then stays up like a dev server.
    started.push(await environment.background.start({ command: `head -c ${2 * MIB} /dev/zero | tr '\\0' x; echo; echo printed-${index}; sleep 30`, cwd: dir }));
  }
  const logs = () => readdirSync(stateDir).filter((name) => name.endsWith('.log')).map((name) => path.join(stateDir, name));
  const note = logBudgetNote(MIB);
  await waitFor(() => logs().length === 6 && logs().every((log) => readFileSync(log, 'utf8').includes(note)), { timeoutMs: 20_000, what: 'every log to end with the note' });
  const total = logs().reduce((sum, log) => sum + statSync(log).size, 0);
  expect(total).toBeLessThanOrEqual(MIB + 6 * (note.length + 2));
  // Each took at most a quarter; the last ones found nothing left.
  for (const log of logs()) expect(statSync(log).size).toBeLessThanOrEqual(MIB / 4 + note.length + 2);
  for (const process of await environment.background.list()) expect(process.status).toBe('running');
  expect(started).toHaveLength(6);
});

test('a process that prints little keeps all of it, and its exit code', async () => {
  const started = await environment.background.start({ command: 'echo hello; exit 7', cwd: dir });
  const ended = await waitFor(async () => {
    const polled = await environment.background.poll(started.id);
    return polled?.info.status === 'exited' ? polled : undefined;
  }, { timeoutMs: 10_000, what: 'the process to end' });
  expect(ended?.info.exitCode).toBe(7);
  expect(ended?.outputTail).toBe('hello\n');
});

test('a PTY process, whose log the worker writes, keeps to its share too; what it prints stays visible in memory', async () => {
  const started = await environment.background.start({ command: `head -c ${2 * MIB} /dev/zero | tr '\\0' x; echo; echo printed; sleep 30`, cwd: dir, pty: true });
  const log = path.join(localBackgroundStateDir(sessionKeyOf(environment.handle)), 'pty', `${started.id}.log`);
  await waitFor(async () => (await environment.background.poll(started.id))?.outputTail.includes('printed'), { timeoutMs: 20_000, what: 'the process to print all of it' });
  await waitFor(() => readFileSync(log, 'utf8').includes(logBudgetNote(MIB)), { timeoutMs: 5_000, what: 'the note in its log' });
  expect(statSync(log).size).toBeLessThanOrEqual(MIB / 4 + logBudgetNote(MIB).length + 2);
});
