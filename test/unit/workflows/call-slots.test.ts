import { CallSlots } from '../../../src/workflows/call-slots';

/** A piece of work that ends when told to. */
function pending() {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return { done, finish };
}

const turns = () => new Promise((resolve) => setImmediate(resolve));

test('no more than the limit run at once; the rest start in the order they asked, as slots free', async () => {
  const slots = new CallSlots(2);
  const started: number[] = [];
  const works = Array.from({ length: 5 }, () => pending());
  const all = Promise.all(
    works.map((work, index) =>
      slots.run(async () => {
        started.push(index);
        await work.done;
        return index;
      }),
    ),
  );
  await turns();
  expect(started).toEqual([0, 1]);
  expect(slots.full).toBe(true);
  works[1]!.finish();
  await turns();
  expect(started).toEqual([0, 1, 2]);
  works[0]!.finish();
  works[2]!.finish();
  await turns();
  expect(started).toEqual([0, 1, 2, 3, 4]);
  works[3]!.finish();
  works[4]!.finish();
  expect(await all).toEqual([0, 1, 2, 3, 4]);
  expect(slots.full).toBe(false);
});

test('a failing call frees its slot, and its failure reaches its caller', async () => {
  const slots = new CallSlots(1);
  const failed = slots.run(() => Promise.reject(new Error('broke')));
  const next = slots.run(() => Promise.resolve('ran'));
  await expect(failed).rejects.toThrow('broke');
  await expect(next).resolves.toBe('ran');
  // Every slot is free again: two run at once under a limit of two.
  const two = new CallSlots(2);
  const gate = pending();
  let running = 0;
  const both = Promise.all([0, 1].map(() => two.run(async () => { running += 1; await gate.done; })));
  await turns();
  expect(running).toBe(2);
  gate.finish();
  await both;
});

test('a caller arriving as a slot is handed on waits behind those already waiting', async () => {
  const slots = new CallSlots(1);
  const order: string[] = [];
  const first = pending();
  const a = slots.run(async () => { order.push('a'); await first.done; });
  const b = slots.run(async () => { order.push('b'); });
  first.finish();
  await a;
  const c = slots.run(async () => { order.push('c'); });
  await Promise.all([b, c]);
  expect(order).toEqual(['a', 'b', 'c']);
});
