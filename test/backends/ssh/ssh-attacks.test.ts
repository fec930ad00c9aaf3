// The model as the adversary on the ssh backend: the host is its to use with the remote user's
// rights, the worker that reads files there for the file tools is not. A file tool pointed at
// something endless (a device, a FIFO, a huge sparse file) is refused instead of filling the
// worker's memory or holding the connection's one SFTP session.
import type { SshDriver } from '../../../src/environments/ssh/ssh-driver';
import type { EnvironmentHandle, TerminalEnvironment } from '../../../src/environments/terminal-environment';
import { expectReadsBoundedBySize, expectReadsOfSpecialFilesRefused } from '../../helpers/bounded-read-contract';
import { describeWithService } from '../../helpers/services';
import { connectHarness, toolResults, uniqueName, withScriptedSession, type Harness } from '../../helpers/session-harness';
import { newHandle, run, SSH_SERVICE_ENV, sshSection, testDriver } from './ssh-fixtures';

describeWithService('sshd', SSH_SERVICE_ENV, 'ssh backend: attacks on the worker through the host', (serviceEnv) => {
  let driver: SshDriver;
  let handle: EnvironmentHandle;
  let environment: TerminalEnvironment;
  let workdir: string;

  beforeAll(async () => {
    driver = testDriver(serviceEnv);
    handle = await driver.start(newHandle());
    environment = await driver.attach(handle);
    workdir = `${await run(environment, 'echo $HOME')}/${uniqueName('attacks')}`;
  });
  afterAll(async () => {
    await run(environment, `rm -rf ${workdir}`).catch(() => undefined);
    await driver.destroy(handle);
    await driver.releaseAll();
  });

  test('file reads stop at the limit: a larger file, also a sparse one, is refused', async () => {
    await expectReadsBoundedBySize(environment.workspace, (command) => run(environment, command), `${workdir}/bounded`);
  });

  test('a device or a FIFO is refused at once, not read for ever or waited on', async () => {
    await expectReadsOfSpecialFilesRefused(environment.workspace, (command) => run(environment, command), `${workdir}/special`);
    // The connection's SFTP session still answers.
    expect(await environment.workspace.stat(workdir)).toMatchObject({ type: 'directory' });
  });

  describe('whole sessions', () => {
    let harness: Harness;
    beforeAll(async () => {
      harness = await connectHarness();
    });
    afterAll(async () => {
      await harness.close();
    });

    test('read_file and patch of /dev/zero, a FIFO and a sparse file leave the worker standing', async () => {
      const terminal = { backend: 'ssh' as const, ssh: { ...sshSection(serviceEnv), workdir: `${workdir}/session` } };
      const script = {
        turns: [
          { tool_calls: [{ name: 'terminal', arguments: { command: 'truncate -s 4G huge.txt && mkfifo pipe && ln -s /dev/zero zeros.txt && echo ready' } }] },
          { tool_calls: [{ name: 'read_file', arguments: { path: '/dev/zero' } }] },
          { tool_calls: [{ name: 'read_file', arguments: { path: 'zeros.txt' } }] },
          { tool_calls: [{ name: 'read_file', arguments: { path: 'pipe' } }] },
          { tool_calls: [{ name: 'read_file', arguments: { path: 'huge.txt' } }] },
          { tool_calls: [{ name: 'patch', arguments: { path: 'huge.txt', old_string: 'a', new_string: 'b' } }] },
          { content: 'done' },
        ],
      };
      const before = process.memoryUsage().rss;
      await withScriptedSession(harness, { script, config: { terminal } }, async ({ handle: session, store }) => {
        expect(await session.result()).toMatchObject({ status: 'completed', answer: 'done' });
        const results = await toolResults(store, session);
        expect(results[0]).toMatchObject({ output: 'ready', exit_code: 0 });
        for (const refused of results.slice(1, 4)) expect(String(refused.error)).toMatch(/not a regular file/);
        expect(String(results[4]?.error)).toMatch(/larger than 64 MiB/);
        expect(String(results[5]?.error)).toMatch(/larger than 64 MiB/);
      });
      expect(process.memoryUsage().rss - before).toBeLessThan(512 * 1024 * 1024);
    }, 180_000);
  });
});
