// What every backend does with a command too long, once quoted, to be handed to bash as one
// argument (the kernel's MAX_ARG_STRLEN): it is not started, and the model reads why and what to
// do, with exit 126; a long command that fits runs as any other.
import type { ExecRequest, ExecResult } from '../../src/environments/terminal-environment';

/** `run` executes a command on the backend, as the terminal tool does. */
export async function expectLongCommandContract(run: (command: string, extra?: Partial<ExecRequest>) => Promise<ExecResult>): Promise<void> {
  // 40,000 characters, far under the terminal tool's 100,000; each `'` takes four once quoted.
  const quoted = `true # ${"'".repeat(40_000)}`;
  for (const pty of [false, true]) {
    const refused = await run(quoted, { pty });
    expect(refused).toMatchObject({ exitCode: 126, timedOut: false, interrupted: false });
    expect(refused.output).toMatch(/^The command was not started: quoted for the shell it is \d+ bytes, .* Write the script to a file with write_file, then run the file\.$/);
  }
  const fits = await run(`echo ${'x'.repeat(50_000)} | wc -c`);
  expect(fits).toMatchObject({ exitCode: 0 });
  expect(fits.output.trim()).toBe('50001');
}
