// The sandbox backends' shell-based file reads (singularity, modal, daytona, vercel) keep the
// same bounds as the others: a file past the limit, a device or a FIFO is refused, also one
// swapped in after the look.
import { execFile } from 'node:child_process';
import { realpathSync } from 'node:fs';
import os from 'node:os';
import { promisify } from 'node:util';
import { ExecWorkspace } from '../../../src/environments/shell/exec-workspace';
import type { ExecRequest, ExecResult } from '../../../src/environments/terminal-environment';
import { expectReadsBoundedBySize, expectReadsOfSpecialFilesRefused, expectSwappedFifoReadsRefused } from '../../helpers/bounded-read-contract';
import { tempDir } from '../../helpers/temp-dirs';

const run = promisify(execFile);
const shell = (command: string) => run('bash', ['-c', command]);

/** The exec a sandbox backend gives ExecWorkspace, here on this machine, with room for a limit's worth of base64. */
async function localExec(request: ExecRequest): Promise<ExecResult> {
  try {
    const { stdout, stderr } = await run('bash', ['-c', request.command], { cwd: request.cwd, timeout: 20_000, maxBuffer: 200 * 1024 * 1024 });
    return { output: stdout + stderr, exitCode: 0, timedOut: false, interrupted: false, cwd: request.cwd ?? '/' };
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; code?: number };
    return { output: `${failed.stdout ?? ''}${failed.stderr ?? ''}`, exitCode: typeof failed.code === 'number' ? failed.code : 1, timedOut: false, interrupted: false, cwd: '/' };
  }
}

test('reads stop at the limit: a larger file, also a sparse one, is refused', async () => {
  const workdir = realpathSync(tempDir('exec-workspace-bounds-'));
  await expectReadsBoundedBySize(new ExecWorkspace(localExec, workdir, os.homedir()), shell, `${workdir}/bounded`);
});

test('a device or a FIFO is refused at once', async () => {
  const workdir = realpathSync(tempDir('exec-workspace-special-'));
  await expectReadsOfSpecialFilesRefused(new ExecWorkspace(localExec, workdir, os.homedir()), shell, `${workdir}/special`);
});

test('a file swapped for a FIFO between the look and the open is refused within seconds, not waited on until the timeout', async () => {
  const workdir = realpathSync(tempDir('exec-workspace-swapped-'));
  await expectSwappedFifoReadsRefused(new ExecWorkspace(localExec, workdir, os.homedir(), undefined, 1), shell, `${workdir}/swapped`);
}, 120_000);
