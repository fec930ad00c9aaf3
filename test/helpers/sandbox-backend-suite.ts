// The behaviour every sandbox backend built on ShellEnvironment must show, as one suite that each
// backend's tests run against its driver: with a local stand-in behind the SDK seam, and live
// when credentials are present. Everything is checked from inside the sandbox, through the driver.
import type { EnvironmentDriver, EnvironmentHandle, TerminalEnvironment } from '../../src/environments/terminal-environment';
import { expectLongCommandContract } from './long-command-contract';
import { expectRealPathContract } from './real-path-contract';

export interface SandboxSuiteSetup {
  /** A fresh driver, as a new worker would build it; all of them reach the same backend. */
  newDriver(): EnvironmentDriver;
  /** The handle a session starts with (backend, sessionId, cwd = the sandbox workdir). */
  handle: EnvironmentHandle;
}

async function eventually(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return check();
}

/** Runs the shared behaviour tests. `setup` is called in beforeAll. */
export function sandboxBehaviourTests(setup: () => SandboxSuiteSetup | Promise<SandboxSuiteSetup>): void {
  let context: SandboxSuiteSetup;
  let driver: EnvironmentDriver;
  let started: EnvironmentHandle;
  let environment: TerminalEnvironment;
  let workdir: string;

  const run = (command: string, extra: Partial<Parameters<TerminalEnvironment['exec']>[0]> = {}) =>
    environment.exec({ command, timeoutMs: 30_000, ...extra });
  /** Whether a pid is alive inside the sandbox (a zombie nobody reaped is not). */
  const alive = async (pid: string) =>
    (await run(`s=$(sed 's/.*) //' /proc/${pid}/stat 2>/dev/null | cut -c1); [ -n "$s" ] && [ "$s" != Z ] && echo alive || echo gone`, { cwd: '/' })).output.trim() ===
    'alive';

  beforeAll(async () => {
    context = await setup();
    driver = context.newDriver();
    started = await driver.start(context.handle);
    workdir = started.cwd;
    environment = await driver.attach(started);
  });

  afterAll(async () => {
    if (started) await driver.destroy(started).catch(() => undefined);
  });

  test('start gives the handle an id and creates the working directory', async () => {
    expect(started.id).toBeTruthy();
    expect(started.details?.home).toMatch(/^\//);
    const result = await run('pwd');
    expect(result).toMatchObject({ exitCode: 0, timedOut: false, interrupted: false });
    expect(result.output.trim()).toBe(workdir);
  });

  test('a command too long once quoted is not started (exit 126, and what to do); a long one that fits runs', async () => {
    await expectLongCommandContract((command, extra = {}) => run(command, extra));
  });

  test('a command reports its output and exit code; stderr is interleaved with stdout', async () => {
    const result = await run('echo one; echo two >&2; echo three; exit 3');
    expect(result.exitCode).toBe(3);
    expect(result.output).toBe('one\ntwo\nthree\n');
    expect((await run('false')).exitCode).toBe(1);
    expect((await run('no-such-command-here')).exitCode).toBe(127);
  });

  test('with pty the command sees a terminal (script(1) in the sandbox), with plain line ends', async () => {
    const hasScript = (await run('command -v script >/dev/null && echo yes || echo no')).output.trim() === 'yes';
    const result = await run('[ -t 1 ] && echo terminal || echo pipe; echo second; exit 4', { pty: true });
    expect(result.exitCode).toBe(4);
    expect(result.output).toBe(`${hasScript ? 'terminal' : 'pipe'}\nsecond\n`);
    expect((await run('[ -t 1 ] && echo terminal || echo pipe')).output).toBe('pipe\n');
  });

  test('a cd carries over to the next command; an explicit cwd does not move the session', async () => {
    await run('mkdir -p sub/deeper');
    const moved = await run('cd sub/deeper && echo moved');
    expect(moved.cwd).toBe(`${workdir}/sub/deeper`);
    expect((await run('pwd')).output.trim()).toBe(`${workdir}/sub/deeper`);
    const elsewhere = await run('pwd', { cwd: '/' });
    expect(elsewhere.output.trim()).toBe('/');
    expect(environment.handle.cwd).toBe(`${workdir}/sub/deeper`);
    await run(`cd ${workdir}`);
    expect(environment.handle.cwd).toBe(workdir);
  });

  test('environment variables reach the command with quotes, commas and newlines intact', async () => {
    const value = `it's "quoted", with, commas\nand a second line $HOME`;
    const result = await run('printf "%s" "$HERMES_SUITE_VALUE"', { env: { HERMES_SUITE_VALUE: value } });
    expect(result.output).toBe(value);
  });

  test('output as it streams reaches onOutput, and long output keeps its head and tail', async () => {
    const chunks: string[] = [];
    const result = await run('seq 1 20000', { maxOutputChars: 2000, onOutput: (chunk) => chunks.push(chunk) });
    expect(result.exitCode).toBe(0);
    expect(result.output.startsWith('1\n2\n3\n')).toBe(true);
    expect(result.output.trimEnd().endsWith('19999\n20000')).toBe(true);
    expect(result.output).toContain('[OUTPUT TRUNCATED');
    expect(chunks.join('')).toBe(Array.from({ length: 20000 }, (_, index) => `${index + 1}\n`).join(''));
  });

  test('a command past its timeout is killed with what it started: exit 124 and the timeout notice', async () => {
    const started = Date.now();
    const result = await run(`echo before; sleep 60 & echo $! > ${workdir}/timeout-child.pid; wait`, { timeoutMs: 1500 });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(result).toMatchObject({ exitCode: 124, timedOut: true, interrupted: false });
    expect(result.output).toContain('before');
    expect(result.output).toContain('[Command timed out after 2s]');
    const child = (await run(`cat ${workdir}/timeout-child.pid`)).output.trim();
    expect(child).toMatch(/^\d+$/);
    expect(await eventually(async () => !(await alive(child)), 5000)).toBe(true);
  });

  test('cancelling a command stops it: exit 130, interrupted, and its processes are gone', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 800);
    const result = await run(`echo $$ > ${workdir}/abort.pid; sleep 60`, { signal: controller.signal });
    expect(result).toMatchObject({ exitCode: 130, interrupted: true, timedOut: false });
    expect(result.output).toContain('[Command interrupted]');
    const shell = (await run(`cat ${workdir}/abort.pid`)).output.trim();
    expect(await eventually(async () => !(await alive(shell)), 5000)).toBe(true);
  });

  test('a command left running by a worker that died is stopped by killOrphan from another worker', async () => {
    const id = `suite-orphan-${Date.now()}`;
    const left = run(`sleep 60`, { id, timeoutMs: 120_000 });
    expect(await eventually(async () => (await run(`test -s /tmp/hermes-commands/${id}.pid && echo yes`, { cwd: '/' })).output.trim() === 'yes', 10_000)).toBe(true);
    const otherWorker = await context.newDriver().attach(started);
    const before = Date.now();
    await otherWorker.killOrphan(id);
    const result = await left;
    expect(Date.now() - before).toBeLessThan(15_000);
    expect(result.exitCode).not.toBe(0);
  });

  test('background processes run, are polled, logged, waited for, written to and killed', async () => {
    const { background } = environment;
    const ticker = await background.start({ command: 'for i in 1 2 3; do echo tick $i; sleep 0.2; done; exit 4', cwd: workdir });
    expect(ticker.id).toMatch(/^proc_[0-9a-f]{12}$/);
    const waited = await background.wait(ticker.id, 20_000);
    expect(waited?.info).toMatchObject({ status: 'exited', exitCode: 4 });
    expect(waited?.outputTail).toContain('tick 3');
    const log = await background.log(ticker.id, 0, 2);
    expect(log).toMatchObject({ totalLines: 3, output: 'tick 2\ntick 3\n' });

    const reader = await background.start({ command: 'read line; echo "got $line"', cwd: workdir });
    await background.write(reader.id, 'hello\n');
    expect((await background.wait(reader.id, 20_000))?.outputTail).toContain('got hello');

    const sleeper = await background.start({ command: 'sleep 120', cwd: workdir });
    expect((await background.poll(sleeper.id))?.info.status).toBe('running');
    expect((await background.list()).map((info) => info.id)).toEqual(expect.arrayContaining([ticker.id, reader.id, sleeper.id]));
    // Watches of many processes look at them in one command.
    expect(await background.running?.([ticker.id, reader.id, sleeper.id, 'proc_000000000000'])).toEqual(new Set([sleeper.id]));
    const killed = await background.kill(sleeper.id);
    expect(killed?.status).toBe('exited');
    expect(await background.running?.([sleeper.id])).toEqual(new Set());
    expect(await alive(String(sleeper.pid))).toBe(false);
  });

  test('files: write, read back, stat and walk; a large file crosses several execs', async () => {
    const { workspace } = environment;
    await workspace.writeFile('notes/hello.txt', 'héllo wörld\nsecond line\n');
    expect((await workspace.readFile(`${workdir}/notes/hello.txt`)).toString('utf8')).toBe('héllo wörld\nsecond line\n');
    expect(await workspace.stat('notes/hello.txt')).toMatchObject({ type: 'file', size: Buffer.byteLength('héllo wörld\nsecond line\n') });
    expect(await workspace.stat('notes')).toMatchObject({ type: 'directory' });
    expect(await workspace.stat('notes/missing.txt')).toBeNull();
    await expect(workspace.readFile('notes/missing.txt')).rejects.toMatchObject({ code: 'ENOENT' });

    const large = Array.from({ length: 4000 }, (_, index) => `line ${index} ${'x'.repeat(40)}`).join('\n');
    await workspace.writeFile('notes/large.txt', large);
    expect((await workspace.readFile('notes/large.txt')).toString('utf8')).toBe(large);

    await workspace.writeFile('notes/b/inner.txt', 'inner');
    await workspace.writeFile('notes/node_modules/skip.js', 'skipped');
    const walked: string[] = [];
    for await (const file of workspace.walk('notes', { maxFiles: 10, skipDirectories: new Set(['node_modules']) })) walked.push(file);
    expect(walked).toEqual([`${workdir}/notes/b/inner.txt`, `${workdir}/notes/hello.txt`, `${workdir}/notes/large.txt`]);
    expect(workspace.resolve('~/x')).toBe(`${String(started.details?.home)}/x`);
  });

  test('realpath follows links inside the sandbox, through missing tails and dangling links', async () => {
    await expectRealPathContract(environment.workspace, (command) => run(command), `${workdir}/real-path`);
  });

  test('another worker re-attaches to the same sandbox from the handle alone', async () => {
    await run(`echo kept > ${workdir}/reattach.txt`);
    const otherDriver = context.newDriver();
    const again = await otherDriver.start(started);
    expect(again.id).toBe(started.id);
    const other = await otherDriver.attach(again);
    expect((await other.exec({ command: 'cat reattach.txt', timeoutMs: 30_000 })).output).toBe('kept\n');
  });

  test('destroy removes the sandbox for good, and a second destroy is harmless', async () => {
    // Stand-ins share this machine's /tmp: leave no background-process files behind.
    await run(`rm -rf -- /tmp/hermes-bg/${(started.sessionId ?? 'default').replace(/[^A-Za-z0-9_-]/g, '_')}`, { cwd: '/' });
    await driver.destroy(started);
    await driver.destroy(started);
    await expect(run('echo still-here')).rejects.toThrow();
  });
}
