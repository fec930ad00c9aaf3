// Commands started through the small helper process behave like ones spawned by the worker:
// output, exit code, their own process group, and a missing program is an error.
import { SmallSpawner } from '../../../src/environments/small-spawner';

const spawner = new SmallSpawner();
afterAll(() => spawner.close());

async function run(file: string, args: string[]): Promise<{ pid: number | undefined; code: number; output: string }> {
  let output = '';
  const started = await spawner.start(file, args, { PATH: process.env.PATH ?? '/usr/bin:/bin' }, (text) => (output += text));
  if (!started) throw new Error('the helper could not start');
  return { pid: started.pid, code: await started.exited, output };
}

test('streams output and reports the exit code', async () => {
  const result = await run('bash', ['-c', 'echo one; echo two >&2; exit 3']);
  expect(result.output).toBe('one\ntwo\n');
  expect(result.code).toBe(3);
});

test('each command leads its own process group (so a kill of the group stops all it started)', async () => {
  let output = '';
  const started = await spawner.start('bash', ['-c', 'ps -o pgid= -p $$'], { PATH: process.env.PATH ?? '/usr/bin:/bin' }, (text) => (output += text));
  await started!.exited;
  expect(Number(output.trim())).toBe(started!.pid);
});

test('a command killed by a signal exits with 128 + the signal number', async () => {
  const result = await run('bash', ['-c', 'kill -TERM $$']);
  expect(result.code).toBe(143);
});

test('many commands at once each get their own output', async () => {
  const results = await Promise.all(Array.from({ length: 16 }, (_, index) => run('bash', ['-c', `sleep 0.2; echo ${index}`])));
  expect(results.map((result) => result.output.trim())).toEqual(Array.from({ length: 16 }, (_, index) => String(index)));
});

test('a program that does not exist fails to start', async () => {
  await expect(spawner.start('no-such-program-hermes', [], { PATH: '/usr/bin:/bin' }, () => undefined)).rejects.toThrow(/ENOENT/);
});
