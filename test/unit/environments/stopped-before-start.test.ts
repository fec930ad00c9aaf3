// A command whose stop comes before its start is never started, on the backends that run a shell
// script through a runner (Modal, Daytona, Vercel, Singularity): nothing reaches the sandbox.
import { ShellEnvironment } from '../../../src/environments/shell/shell-environment';
import type { ShellRunner } from '../../../src/environments/shell/shell-runner';

it('does not hand an already stopped command to the sandbox', async () => {
  const run = jest.fn<ReturnType<ShellRunner>, Parameters<ShellRunner>>(async () => 0);
  const environment = new ShellEnvironment({ backend: 'modal', cwd: '/work' }, { run });
  const result = await environment.exec({ command: 'touch /work/ran', timeoutMs: 10_000, signal: AbortSignal.abort() });
  expect(result).toEqual({ output: '[Command interrupted]', exitCode: 130, timedOut: false, interrupted: true, cwd: '/work' });
  expect(run).not.toHaveBeenCalled();
});
