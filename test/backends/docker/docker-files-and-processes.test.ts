// Files and background processes inside a session's container, against the real test daemon.
import { createHash } from 'node:crypto';
import type { DockerDriver } from '../../../src/environments/docker/docker-driver';
import type { EnvironmentHandle, TerminalEnvironment } from '../../../src/environments/terminal-environment';
import { expectRealPathContract } from '../../helpers/real-path-contract';
import { describeWithService } from '../../helpers/services';
import { waitFor } from '../../helpers/wait';
import { DOCKER_SERVICE_ENV, newHandle, testDriver } from './docker-fixtures';

const walkOptions = { maxFiles: 100, skipDirectories: new Set(['.git', 'node_modules']) };

async function collect(files: AsyncIterable<string>): Promise<string[]> {
  const all: string[] = [];
  for await (const file of files) all.push(file);
  return all;
}

describeWithService('docker', DOCKER_SERVICE_ENV, 'docker backend: files and background processes', (serviceEnv) => {
  let driver: DockerDriver;
  let handle: EnvironmentHandle;
  let environment: TerminalEnvironment;

  beforeAll(async () => {
    driver = testDriver(serviceEnv);
    handle = await driver.start(newHandle());
    environment = await driver.attach(handle);
  });
  afterAll(async () => {
    await driver.destroy(handle);
  });

  test('realpath follows links inside the container, through missing tails and dangling links', async () => {
    await environment.exec({ command: 'mkdir -p /workspace/real-path', timeoutMs: 30_000 });
    await expectRealPathContract(environment.workspace, (command) => environment.exec({ command, timeoutMs: 30_000 }), '/workspace/real-path');
  });

  test('files written through the workspace are read back and visible to commands', async () => {
    const { workspace } = environment;
    await workspace.writeFile('notes/hello.txt', 'héllo wörld\nline 2\n');
    expect((await workspace.readFile('notes/hello.txt')).toString('utf8')).toBe('héllo wörld\nline 2\n');
    expect(await workspace.stat('notes/hello.txt')).toMatchObject({ type: 'file', size: Buffer.byteLength('héllo wörld\nline 2\n') });
    expect(await workspace.stat('notes')).toMatchObject({ type: 'directory' });
    expect(await workspace.stat('missing.txt')).toBeNull();
    expect((await environment.exec({ command: 'cat notes/hello.txt | wc -l', timeoutMs: 10_000 })).output).toBe('2\n');
  });

  test('binary files come out byte for byte', async () => {
    const made = await environment.exec({ command: 'head -c 70000 /dev/urandom > blob.bin; printf "\\000\\377\\r\\n" >> blob.bin; sha256sum blob.bin', timeoutMs: 10_000 });
    const bytes = await environment.workspace.readFile('/workspace/blob.bin');
    expect(bytes).toHaveLength(70004);
    expect(made.output.split(' ')[0]).toBe(createHash('sha256').update(bytes).digest('hex'));
  });

  test('a rewrite keeps the file mode, and files on the tmpfs work too', async () => {
    await environment.exec({ command: 'printf old > run.sh && chmod 750 run.sh', timeoutMs: 10_000 });
    await environment.workspace.writeFile('run.sh', 'echo new\n');
    expect((await environment.exec({ command: 'stat -c %a run.sh; ./run.sh', timeoutMs: 10_000 })).output).toBe('750\nnew\n');
    await environment.workspace.writeFile('/tmp/scratch/on-tmpfs.txt', 'in memory');
    expect((await environment.exec({ command: 'cat /tmp/scratch/on-tmpfs.txt', timeoutMs: 10_000 })).output).toBe('in memory');
  });

  test('errors look like filesystem errors (the file tools describe them by code)', async () => {
    await expect(environment.workspace.readFile('nope.txt')).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(environment.workspace.readFile('notes')).rejects.toMatchObject({ code: 'EISDIR' });
    await expect(environment.workspace.writeFile('notes/hello.txt/below', 'x')).rejects.toMatchObject({ code: 'EEXIST' });
  });

  test('walk lists files depth first, by name, skipping the skipped directories and honouring maxFiles', async () => {
    const command = 'mkdir -p tree/b tree/a/.git tree/node_modules/x && touch tree/c.txt tree/b/2.txt tree/b/1.txt tree/a/z.txt tree/a/.git/HEAD tree/node_modules/x/i.js tree/0.txt && ln -s c.txt tree/link.txt';
    await environment.exec({ command, timeoutMs: 10_000 });
    expect(await collect(environment.workspace.walk('tree', walkOptions))).toEqual([
      '/workspace/tree/0.txt',
      '/workspace/tree/a/z.txt',
      '/workspace/tree/b/1.txt',
      '/workspace/tree/b/2.txt',
      '/workspace/tree/c.txt',
    ]);
    expect(await collect(environment.workspace.walk('tree', { ...walkOptions, maxFiles: 2 }))).toEqual(['/workspace/tree/0.txt', '/workspace/tree/a/z.txt']);
    expect(await collect(environment.workspace.walk('tree/c.txt', walkOptions))).toEqual(['/workspace/tree/c.txt']);
    expect(await collect(environment.workspace.walk('no-such-dir', walkOptions))).toEqual([]);
  });

  test('a background process can be started, polled, read, written to and killed', async () => {
    const { background } = environment;
    const info = await background.start({ command: 'echo ready; read line; echo "got $line"; sleep 300', cwd: '/workspace' });
    expect(info).toMatchObject({ status: 'running', command: expect.stringContaining('read line') });
    await waitFor(async () => (await background.poll(info.id))?.outputTail.includes('ready'), { timeoutMs: 10_000, what: 'the process to start' });

    await background.write(info.id, 'hello\n');
    await waitFor(async () => (await background.poll(info.id))?.outputTail.includes('got hello'), { timeoutMs: 10_000, what: 'the process to read its input' });
    const log = await background.log(info.id, 0, 10);
    expect(log).toMatchObject({ output: 'ready\ngot hello\n', totalLines: 2 });
    expect((await background.list()).map((process) => process.id)).toContain(info.id);

    const killed = await background.kill(info.id);
    expect(killed).toMatchObject({ status: 'exited' });
    const pid = String(info.pid);
    const check = await environment.exec({ command: `kill -0 -- -${pid} 2>/dev/null && echo alive || echo gone`, timeoutMs: 10_000 });
    expect(check.output).toBe('gone\n');
  });

  test('a background process under a terminal sees a tty', async () => {
    const info = await environment.background.start({ command: 'tty; sleep 0.2', cwd: '/workspace', pty: true });
    const done = await environment.background.wait(info.id, 10_000);
    expect(done?.info).toMatchObject({ status: 'exited', exitCode: 0 });
    expect(done?.outputTail).toMatch(/\/dev\/pts\/\d+/);
  });

  test('background processes are found again by another worker', async () => {
    const info = await environment.background.start({ command: 'echo survivor; sleep 300', cwd: '/workspace' });
    const elsewhere = await testDriver(serviceEnv).attach(handle);
    await waitFor(async () => (await elsewhere.background.poll(info.id))?.outputTail.includes('survivor'), { timeoutMs: 10_000, what: 'the other worker to see the output' });
    expect(await elsewhere.background.kill(info.id)).toMatchObject({ status: 'exited' });
  });
});
