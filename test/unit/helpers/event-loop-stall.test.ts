// The stall measure the "does not hold the worker's thread" tests rely on: it must see the thread
// held by work, and must not blame the work for time the machine gave the thread no core.
import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { longestStallDuring, mainThreadSchedule } from '../../helpers/event-loop-stall';

/** Holds the thread for `ms` of its own run time, however long that takes on a busy machine. */
function holdFor(ms: number): void {
  const until = mainThreadSchedule().runMs + ms;
  while (mainThreadSchedule().runMs < until) {
    // spin
  }
}

test('the thread held by synchronous work is seen, on a quiet machine or a busy one', async () => {
  const { longestStallMs } = await longestStallDuring(async () => {
    await sleep(50);
    holdFor(400);
    await sleep(50);
  });
  expect(longestStallMs).toBeGreaterThanOrEqual(350);
  expect(longestStallMs).toBeLessThan(1000);
});

test('time the thread waits for a core, with every core busy elsewhere, is not counted', async () => {
  // Twice as many spinning processes as cores: this thread waits for a core at every beat.
  const spinners: ChildProcess[] = Array.from({ length: 2 * os.availableParallelism() }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  try {
    await sleep(200);
    const { longestStallMs } = await longestStallDuring(async () => {
      for (let beat = 0; beat < 40; beat++) {
        holdFor(5);
        await sleep(10);
      }
    });
    expect(longestStallMs).toBeLessThan(100);
  } finally {
    for (const spinner of spinners) spinner.kill('SIGKILL');
  }
});
