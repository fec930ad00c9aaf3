import { Semaphore } from '../../src/semaphore';

test('holders beyond the limit wait in line, and each release lets the next one in', async () => {
  const slots = new Semaphore(2);
  const first = await slots.acquire();
  await slots.acquire();
  const order: string[] = [];
  const third = slots.acquire().then((release) => (order.push('third'), release));
  const fourth = slots.acquire().then((release) => (order.push('fourth'), release));
  await Promise.resolve();
  expect(order).toEqual([]);
  first();
  first(); // a second release of the same slot frees nothing more
  (await third)();
  await fourth;
  expect(order).toEqual(['third', 'fourth']);
  expect(slots.active).toBe(2);
});

test('a waiter whose signal aborts gives up its place, and the slot goes to the one behind it', async () => {
  const slots = new Semaphore(1);
  const held = await slots.acquire();
  const gaveUp = new AbortController();
  const giving = slots.acquire(gaveUp.signal);
  const next = slots.acquire();
  gaveUp.abort(new Error('cancelled'));
  await expect(giving).rejects.toThrow('cancelled');
  held();
  const release = await next;
  expect(slots.active).toBe(1);
  release();
  expect(slots.active).toBe(0);
  await expect(slots.acquire(AbortSignal.abort(new Error('already')))).rejects.toThrow('already');
});
