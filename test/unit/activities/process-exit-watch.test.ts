import { ProcessExitWatch } from '../../../src/activities/process-exit-watch';
import type { BackgroundProcesses, EnvironmentHandle, TerminalEnvironment } from '../../../src/environments/terminal-environment';
import { waitFor } from '../../helpers/wait';

/** A backend whose processes run while their id is in `running`; every look is recorded. */
function fakeBackend(options: { batched?: boolean } = {}) {
  const running = new Set<string>();
  const looks: string[][] = [];
  const polls: string[] = [];
  let attaches = 0;
  let failNext: Error | undefined;
  const background: Partial<BackgroundProcesses> = {
    poll: async (id) => {
      polls.push(id);
      return running.has(id) ? { info: { id, command: '', cwd: '/', startedAt: '', pty: false, notifyOnComplete: true, status: 'running' }, outputTail: '' } : undefined;
    },
    ...(options.batched === false
      ? {}
      : {
          running: async (ids: readonly string[]) => {
            looks.push([...ids]);
            if (failNext) {
              const error = failNext;
              failNext = undefined;
              throw error;
            }
            return new Set(ids.filter((id) => running.has(id)));
          },
        }),
  };
  const attach = async (_handle: EnvironmentHandle) => {
    attaches += 1;
    return { background } as TerminalEnvironment;
  };
  return { running, looks, polls, attach, attaches: () => attaches, failOnce: (error: Error) => (failNext = error) };
}

const session = (sessionId: string): EnvironmentHandle => ({ backend: 'ssh', cwd: '/', sessionId, id: 'host' });
const never = () => new AbortController().signal;

test('the processes of one environment are looked at together, one look a beat, and each watch ends with its process', async () => {
  const backend = fakeBackend();
  const ids = Array.from({ length: 50 }, (_, index) => `proc_${String(index).padStart(12, '0')}`);
  for (const id of ids) backend.running.add(id);
  const watch = new ProcessExitWatch(backend.attach, 20);
  const ended: string[] = [];
  // The handle's cwd follows `cd`: watches from calls made in different folders still share a look.
  const all = Promise.all(ids.map((id, index) => watch.ended({ ...session('s1'), cwd: `/dir-${index}` }, id, never()).then(() => ended.push(id))));
  await waitFor(() => backend.looks.length >= 2, { timeoutMs: 5000, what: 'two looks' });
  expect(ended).toEqual([]);
  expect(backend.looks[0]).toEqual(ids);
  backend.running.delete(ids[7]!);
  await waitFor(() => ended.length === 1, { timeoutMs: 5000, what: 'the ended process' });
  expect(ended).toEqual([ids[7]]);
  for (const id of ids) backend.running.delete(id);
  await all;
  const looks = backend.looks.length;
  await new Promise((resolve) => setTimeout(resolve, 100));
  // Nobody waits: no more looks, and the environment was attached once for all of them.
  expect(backend.looks.length).toBe(looks);
  expect(backend.attaches()).toBe(1);
});

test('the environments of different sessions are looked at apart', async () => {
  const backend = fakeBackend();
  backend.running.add('proc_aaaaaaaaaaaa').add('proc_bbbbbbbbbbbb');
  const watch = new ProcessExitWatch(backend.attach, 20);
  const first = watch.ended(session('s1'), 'proc_aaaaaaaaaaaa', never());
  const second = watch.ended(session('s2'), 'proc_bbbbbbbbbbbb', never());
  await waitFor(() => backend.looks.length >= 2, { timeoutMs: 5000, what: 'a look at each' });
  expect(backend.looks.slice(0, 2)).toEqual([['proc_aaaaaaaaaaaa'], ['proc_bbbbbbbbbbbb']]);
  backend.running.clear();
  await Promise.all([first, second]);
});

test('a cancelled watch stops waiting with its reason; the others go on', async () => {
  const backend = fakeBackend();
  backend.running.add('proc_aaaaaaaaaaaa').add('proc_bbbbbbbbbbbb');
  const watch = new ProcessExitWatch(backend.attach, 20);
  const cancel = new AbortController();
  const cancelled = watch.ended(session('s1'), 'proc_aaaaaaaaaaaa', cancel.signal);
  const other = watch.ended(session('s1'), 'proc_bbbbbbbbbbbb', never());
  await waitFor(() => backend.looks.length >= 1, { timeoutMs: 5000, what: 'a look' });
  const reason = new Error('cancelled');
  cancel.abort(reason);
  await expect(cancelled).rejects.toBe(reason);
  const looksBefore = backend.looks.length;
  await waitFor(() => backend.looks.length > looksBefore, { timeoutMs: 5000, what: 'the next look' });
  expect(backend.looks.at(-1)).toEqual(['proc_bbbbbbbbbbbb']);
  backend.running.clear();
  await other;
  // Already cancelled: no wait at all.
  await expect(watch.ended(session('s1'), 'proc_aaaaaaaaaaaa', cancel.signal)).rejects.toBe(reason);
});

test('a failed look fails the watches waiting on it, and a watch after it attaches afresh', async () => {
  const backend = fakeBackend();
  backend.running.add('proc_aaaaaaaaaaaa');
  const watch = new ProcessExitWatch(backend.attach, 20);
  const failure = new Error('connection lost');
  backend.failOnce(failure);
  await expect(Promise.all([watch.ended(session('s1'), 'proc_aaaaaaaaaaaa', never()), watch.ended(session('s1'), 'proc_aaaaaaaaaaaa', never())])).rejects.toBe(failure);
  const again = watch.ended(session('s1'), 'proc_aaaaaaaaaaaa', never());
  await waitFor(() => backend.looks.length >= 2, { timeoutMs: 5000, what: 'a new look' });
  backend.running.clear();
  await again;
  expect(backend.attaches()).toBe(2);
});

test('a backend with no look at many processes is polled a process at a time', async () => {
  const backend = fakeBackend({ batched: false });
  backend.running.add('proc_aaaaaaaaaaaa');
  const watch = new ProcessExitWatch(backend.attach, 20);
  const waiting = watch.ended(session('s1'), 'proc_aaaaaaaaaaaa', never());
  await waitFor(() => backend.polls.length >= 1, { timeoutMs: 5000, what: 'a poll' });
  backend.running.clear();
  await waiting;
  expect(new Set(backend.polls)).toEqual(new Set(['proc_aaaaaaaaaaaa']));
});
