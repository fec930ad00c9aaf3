// Commands started through the small helper process behave like ones spawned by the worker:
// output, exit code, their own process group, and a missing program is an error.
import { execFileSync } from 'node:child_process';
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

describe('run: a program given bytes and giving bytes back (checkpoints run git this way)', () => {
  interface Ran {
    code: number | null;
    stdout: Buffer;
    stderr: string;
  }

  function runProgram(file: string, args: string[], input: string | Buffer, cwd = '/'): { kill: () => void; ran: Promise<Ran> } {
    const stdout: Buffer[] = [];
    let stderr = '';
    const running = spawner.run(file, args, {
      cwd,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ONLY: 'this' },
      input,
      onStdout: (chunk) => stdout.push(chunk),
      onStderr: (chunk) => (stderr += chunk.toString('utf8')),
    });
    if (!running) throw new Error('the helper could not start');
    return { kill: running.kill, ran: running.closed.then((code) => ({ code, stdout: Buffer.concat(stdout), stderr })) };
  }

  test('bytes go in and come out unchanged (NULs and bytes that are not UTF-8), with the exit code', async () => {
    const bytes = Buffer.from([0, 1, 2, 0xff, 0xfe, 0x80, 10, 0, 0xc3]);
    const { ran } = runProgram('sh', ['-c', 'cat; echo oops >&2; exit 4'], bytes);
    const result = await ran;
    expect(result.stdout.equals(bytes)).toBe(true);
    expect(result.stderr).toBe('oops\n');
    expect(result.code).toBe(4);
  });

  test('runs in the folder and with exactly the environment given', async () => {
    expect((await runProgram('pwd', [], '', '/usr').ran).stdout.toString('utf8')).toBe('/usr\n');
    const environment = (await runProgram('env', ['-0'], '').ran).stdout.toString('utf8').split('\0').filter(Boolean).sort();
    expect(environment).toEqual(['ONLY=this', `PATH=${process.env.PATH ?? '/usr/bin:/bin'}`]);
  });

  test('a large output arrives whole and in order', async () => {
    const result = await runProgram('seq', ['1', '500000'], '').ran;
    const lines = result.stdout.toString('utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(500_000);
    expect(lines.at(-1)).toBe('500000');
    expect(lines.every((line, index) => line === String(index + 1))).toBe(true);
  });

  test('kill stops the program; its exit code is then null (a signal)', async () => {
    const started = Date.now();
    const { kill, ran } = runProgram('sleep', ['30'], '');
    setTimeout(kill, 100);
    expect((await ran).code).toBeNull();
    expect(Date.now() - started).toBeLessThan(5000);
  });

  test('a program that does not exist fails', async () => {
    await expect(runProgram('no-such-program-hermes', [], '').ran).rejects.toThrow(/ENOENT/);
  });

  test('a helper that goes fails the runs it had, and the next run starts a new helper', async () => {
    const own = new SmallSpawner();
    try {
      const running = own.run('sleep', ['30'], { cwd: '/', env: { PATH: '/usr/bin:/bin' }, input: '', onStdout: () => undefined, onStderr: () => undefined });
      own.close();
      await expect(running!.closed).rejects.toThrow(/exited/);
      let output = '';
      const next = own.run('echo', ['again'], { cwd: '/', env: { PATH: '/usr/bin:/bin' }, input: '', onStdout: (chunk) => (output += chunk.toString()), onStderr: () => undefined });
      expect(await next!.closed).toBe(0);
      expect(output).toBe('again\n');
    } finally {
      own.close();
    }
  });
});

test('programs go through the helper where a fork costs: once it runs, or in a large process; a small one forks itself', () => {
  // A fresh process is small: this one (Jest's) may not be.
  const script = `
    const { SmallSpawner } = require(${JSON.stringify(require.resolve('../../../src/environments/small-spawner'))});
    (async () => {
      const small = new SmallSpawner();
      const seen = [small.worthwhile()];
      await small.run('true', [], { cwd: '/', env: {}, input: '', onStdout: () => undefined, onStderr: () => undefined }).closed;
      seen.push(small.worthwhile());
      small.close();
      const held = Array.from({ length: 260 }, () => Buffer.alloc(1024 * 1024, 1));
      seen.push(new SmallSpawner().worthwhile(), held.length);
      console.log(JSON.stringify(seen));
    })();`;
  const output = execFileSync(process.execPath, ['-r', 'tsx/cjs', '-e', script], { encoding: 'utf8', timeout: 30_000 });
  expect(JSON.parse(output)).toEqual([false, true, true, 260]);
});

test('inFlight counts what has started through the helper and not ended', async () => {
  const own = new SmallSpawner();
  try {
    expect(own.inFlight).toBe(0);
    const started = await own.start('sleep', ['0.2'], { PATH: '/usr/bin:/bin' }, () => undefined);
    const running = own.run('sleep', ['0.1'], { cwd: '/', env: { PATH: '/usr/bin:/bin' }, input: '', onStdout: () => undefined, onStderr: () => undefined });
    expect(own.inFlight).toBe(2);
    await running!.closed;
    expect(own.inFlight).toBe(1);
    await started!.exited;
    expect(own.inFlight).toBe(0);
  } finally {
    own.close();
  }
});
