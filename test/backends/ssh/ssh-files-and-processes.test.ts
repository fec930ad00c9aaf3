// Files over SFTP and background processes on the SSH backend, against the real test sshd: atomic
// writes, binary content, walks; processes started, polled, fed, killed, and cleaned up with the
// session (the host itself stays).
import { createHash, randomBytes } from 'node:crypto';
import type { SshDriver } from '../../../src/environments/ssh/ssh-driver';
import type { TerminalEnvironment } from '../../../src/environments/terminal-environment';
import { expectRealPathContract } from '../../helpers/real-path-contract';
import { describeWithService } from '../../helpers/services';
import { waitFor } from '../../helpers/wait';
import { newHandle, remoteProcessExists, run, SSH_SERVICE_ENV, testDriver, uniqueSessionId } from './ssh-fixtures';

const SKIP = new Set(['node_modules', '.git']);

describeWithService('sshd', SSH_SERVICE_ENV, 'ssh backend: files and background processes', (serviceEnv) => {
  let driver: SshDriver;
  let environment: TerminalEnvironment;
  let root: string;

  beforeAll(async () => {
    driver = testDriver(serviceEnv);
    const handle = await driver.start(newHandle(uniqueSessionId(), `/tmp/hermes-ssh-files-${uniqueSessionId()}`));
    environment = await driver.attach(handle);
    root = handle.cwd;
  });
  afterAll(async () => {
    await run(environment, `rm -rf ${root}`);
    await driver.destroy(environment.handle);
    await driver.releaseAll();
  });

  test('writeFile creates parent directories, reads back, and resolves relative paths against the cwd', async () => {
    await environment.workspace.writeFile('deep/er/note.txt', 'héllo wörld ✓\n');
    expect((await environment.workspace.readFile(`${root}/deep/er/note.txt`)).toString('utf8')).toBe('héllo wörld ✓\n');
    expect(await run(environment, `cat ${root}/deep/er/note.txt`)).toBe('héllo wörld ✓');
    expect(await environment.workspace.stat('deep')).toMatchObject({ type: 'directory' });
    expect(await environment.workspace.stat('deep/er/note.txt')).toMatchObject({ type: 'file', size: Buffer.byteLength('héllo wörld ✓\n') });
    expect(await environment.workspace.stat('missing.txt')).toBeNull();
    await expect(environment.workspace.readFile('missing.txt')).rejects.toMatchObject({ code: 'ENOENT' });
  });

  test('realpath over SFTP follows links, through missing tails and dangling links', async () => {
    await run(environment, `mkdir -p ${root}/real-path`);
    const canonical = await run(environment, `cd ${root}/real-path && pwd -P`);
    await expectRealPathContract(environment.workspace, (command) => run(environment, command), canonical);
  });

  test('binary content survives both directions byte for byte', async () => {
    await run(environment, `head -c 65536 /dev/urandom > ${root}/random.bin`);
    const remoteHash = (await run(environment, `sha256sum ${root}/random.bin`)).split(' ')[0];
    const read = await environment.workspace.readFile('random.bin');
    expect(read).toHaveLength(65536);
    expect(createHash('sha256').update(read).digest('hex')).toBe(remoteHash);

    const bytes = Buffer.from(Array.from({ length: 256 }, (_, index) => index));
    const mixed = Buffer.concat([bytes, randomBytes(1000), bytes]);
    const workspace = environment.workspace as unknown as { writeFile(path: string, content: string | Buffer): Promise<void> };
    await workspace.writeFile('bytes.bin', mixed);
    expect((await run(environment, `sha256sum ${root}/bytes.bin`)).split(' ')[0]).toBe(createHash('sha256').update(mixed).digest('hex'));
  });

  test('overwriting is atomic: the file mode is kept and no temporary file is left', async () => {
    await environment.workspace.writeFile('script.sh', 'echo one\n');
    await run(environment, `chmod 750 ${root}/script.sh`);
    await environment.workspace.writeFile('script.sh', 'echo two\n');
    expect(await run(environment, `stat -c %a ${root}/script.sh; ${root}/script.sh; ls -a ${root} | grep -c hermes-tmp || true`)).toBe('750\ntwo\n0');
  });

  test('walk lists files depth first, sorted, skipping ignored directories, up to maxFiles', async () => {
    const base = `${root}/tree`;
    await run(environment, `mkdir -p ${base}/b/c ${base}/node_modules/x ${base}/a && touch ${base}/z.txt ${base}/a/1.txt ${base}/b/2.txt ${base}/b/c/3.txt ${base}/node_modules/x/skip.txt && ln -s ${base}/b ${base}/link`);
    const files: string[] = [];
    for await (const file of environment.workspace.walk('tree', { maxFiles: 100, skipDirectories: SKIP })) files.push(file);
    expect(files).toEqual([`${base}/a/1.txt`, `${base}/b/2.txt`, `${base}/b/c/3.txt`, `${base}/z.txt`]);
    const limited: string[] = [];
    for await (const file of environment.workspace.walk('tree', { maxFiles: 2, skipDirectories: SKIP })) limited.push(file);
    expect(limited).toHaveLength(2);
    const single: string[] = [];
    for await (const file of environment.workspace.walk('tree/z.txt', { maxFiles: 10, skipDirectories: SKIP })) single.push(file);
    expect(single).toEqual([`${base}/z.txt`]);
  });

  test('a background process can be started, polled, fed through stdin, and read', async () => {
    const started = await environment.background.start({ command: 'echo ready; read line; echo "got:$line"; pwd; exit 4', cwd: root });
    expect(started).toMatchObject({ status: 'running', cwd: root });
    await waitFor(async () => (await environment.background.poll(started.id))?.outputTail.includes('ready'), { timeoutMs: 10_000, what: 'the process to print ready' });
    expect((await environment.background.list()).map((info) => info.id)).toContain(started.id);
    await environment.background.write(started.id, 'hello over ssh\n');
    const finished = await environment.background.wait(started.id, 10_000);
    expect(finished?.info).toMatchObject({ status: 'exited', exitCode: 4 });
    const log = await environment.background.log(started.id, 0, 10);
    expect(log?.output).toBe(`ready\ngot:hello over ssh\n${root}\n`);
    expect(log?.totalLines).toBe(3);
  });

  test('kill stops a background process tree', async () => {
    const token = uniqueSessionId('bg');
    const started = await environment.background.start({ command: `sleep 300 # ${token}`, cwd: root });
    await waitFor(() => remoteProcessExists(environment, token), { timeoutMs: 10_000, what: 'the background process' });
    expect(await environment.background.running?.([started.id, 'proc_000000000000'])).toEqual(new Set([started.id]));
    const killed = await environment.background.kill(started.id);
    expect(killed?.status).toBe('exited');
    expect(await remoteProcessExists(environment, token)).toBe(false);
    expect(await environment.background.running?.([started.id])).toEqual(new Set());
  });

  test('a PTY background process sees a terminal', async () => {
    const started = await environment.background.start({ command: 'tty; [ -t 1 ] && echo is-a-tty', cwd: root, pty: true });
    const finished = await environment.background.wait(started.id, 10_000);
    expect(finished?.info.status).toBe('exited');
    expect(finished?.outputTail).toMatch(/\/dev\/pts\/\d+\r?\nis-a-tty/);
  });

  test("destroy stops the session's background processes and removes their state; the host stays", async () => {
    const sessionId = uniqueSessionId('destroy');
    const handle = await driver.start(newHandle(sessionId, '/tmp'));
    const session = await driver.attach(handle);
    const token = uniqueSessionId('left-running');
    await session.background.start({ command: `sleep 300 # ${token}`, cwd: '/tmp' });
    await waitFor(() => remoteProcessExists(session, token), { timeoutMs: 10_000, what: 'the background process' });
    const stateDir = `${String(handle.details?.home)}/.hermes-temporal/bg/${sessionId}`;
    expect(await run(session, `ls ${stateDir} | grep -c json`)).toBe('1');

    await driver.destroy(handle);
    expect(await remoteProcessExists(environment, token)).toBe(false);
    expect(await run(environment, `test -e ${stateDir} && echo left || echo removed`)).toBe('removed');
    await driver.destroy(handle);
    expect(await run(environment, 'echo host-still-here')).toBe('host-still-here');
  });
});
