// Where a path really leads, on this machine's filesystem and through a shell (the resolution
// sandbox backends run in their sandbox): the approval gate judges file tools by it.
import { execFile } from 'node:child_process';
import { realpathSync } from 'node:fs';
import os from 'node:os';
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
