// Where a path really leads, on this machine's filesystem and through a shell (the resolution
// sandbox backends run in their sandbox): the approval gate judges file tools by it.
import { execFile } from 'node:child_process';
import { realpathSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { LocalWorkspace } from '../../../src/environments/local-workspace';
import { ExecWorkspace } from '../../../src/environments/shell/exec-workspace';
import type { ExecRequest, ExecResult } from '../../../src/environments/terminal-environment';
import { expectRealPathContract } from '../../helpers/real-path-contract';
import { tempDir } from '../../helpers/temp-dirs';

const run = promisify(execFile);
const shell = (command: string) => run('bash', ['-c', command]);

/** The exec a sandbox backend gives ExecWorkspace, here on this machine. */
async function localExec(request: ExecRequest): Promise<ExecResult> {
  try {
    const { stdout, stderr } = await run('bash', ['-c', request.command], { cwd: request.cwd, timeout: request.timeoutMs });
    return { output: stdout + stderr, exitCode: 0, timedOut: false, interrupted: false, cwd: request.cwd ?? '/' };
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; code?: number };
    return { output: `${failed.stdout ?? ''}${failed.stderr ?? ''}`, exitCode: typeof failed.code === 'number' ? failed.code : 1, timedOut: false, interrupted: false, cwd: '/' };
  }
}

test('the local workspace follows links, resolves missing tails and dangling links, and refuses loops', async () => {
  const workdir = realpathSync(tempDir('real-path-local-'));
  await expectRealPathContract(new LocalWorkspace(workdir), shell, workdir);
});

test('the shell resolution of sandbox backends gives the same answers', async () => {
  const workdir = realpathSync(tempDir('real-path-exec-'));
  await expectRealPathContract(new ExecWorkspace(localExec, workdir, os.homedir()), shell, workdir);
});

describe.each([['bash'], ['sh']])('paths with line breaks, resolved together through %s', (program) => {
  /** ExecWorkspace's exec through `program`, as a backend whose shell is dash would run it. */
  const execWith = async (request: ExecRequest): Promise<ExecResult> => {
    try {
      const { stdout } = await run(program, ['-c', request.command], { cwd: request.cwd });
      return { output: stdout, exitCode: 0, timedOut: false, interrupted: false, cwd: '/' };
    } catch (error) {
      return { output: String((error as { stdout?: string }).stdout ?? ''), exitCode: 1, timedOut: false, interrupted: false, cwd: '/' };
    }
  };

  test('each answer stays with its own path: a line break in one cannot hand a later path an answer that is not its own', async () => {
    const workdir = realpathSync(tempDir('real-path-breaks-'));
    const outside = realpathSync(tempDir('real-path-breaks-outside-'));
    // A link to a file outside whose name holds a line break, as a model could make with `ln -s`.
    symlinkSync(`${outside}/profile\n+${workdir}/fine.sh`, path.join(workdir, 'job'));
    symlinkSync(`${outside}/secret`, path.join(workdir, 'notes'));
    const workspace = new ExecWorkspace(execWith, workdir, os.homedir());
    // Asked first, a name whose answer would print as two lines; then the links.
    const named = [`made\n+${workdir}/fine`, 'job', 'notes'];
    expect(await workspace.realpaths(named)).toEqual([`${workdir}/made?+${workdir}/fine`, `${outside}/profile?+${workdir}/fine.sh`, `${outside}/secret`]);
    // One at a time, the same answers: the folder a break lies in is kept.
    expect(await workspace.realpath('job')).toBe(`${outside}/profile?+${workdir}/fine.sh`);
  });
});
