// `demo --keep` keeps its server up after the session until Enter: SIGTERM or Ctrl+C then only
// ends the wait (the session is over: nothing to cancel, nothing abandoned), and so does the end
// of input, where nobody can press Enter.
import { spawn } from 'node:child_process';
import { CLI_ENTRY, CliTestbed, requireBuild, withTimeout } from '../helpers/cli';

requireBuild();

const testbed = new CliTestbed();
afterEach(() => testbed.cleanup());

const demoEnv = { TEMPORAL_ADDRESS: undefined, OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, HERMES_MODEL: undefined };

test('with its input at an end, demo --keep stops its server and exits 0', async () => {
  const sandbox = await testbed.sandbox({ env: demoEnv });
  const result = await testbed.runCli(sandbox, ['demo', '--keep'], 120_000);
  expect(result.code).toBe(0);
  expect(result.stdout).toMatch(/press Enter to stop it/);
}, 150_000);

test('SIGTERM while demo --keep waits for Enter ends the wait quietly: the completed session is not cancelled or called abandoned', async () => {
  const sandbox = await testbed.sandbox({ env: demoEnv });
  // A terminal-like input that stays open: only the signal can end the wait.
  const demo = spawn(process.execPath, [CLI_ENTRY, 'demo', '--keep'], { cwd: sandbox.cwd, env: sandbox.env, stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  demo.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  demo.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => demo.once('exit', (code) => resolve(code)));
  testbed.onCleanup(() => void demo.kill('SIGKILL'));
  await withTimeout(
    (async () => {
      while (!/press Enter to stop it/.test(output) && demo.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 100));
    })(),
    120_000,
    () => `demo --keep did not reach its wait:\n${output}`,
  );
  demo.kill('SIGTERM');
  expect(await withTimeout(exited, 20_000, () => `demo --keep did not exit on SIGTERM:\n${output}`)).toBe(0);
  expect(output).not.toMatch(/Cancelling the session|abandoned/);
  expect(output).toMatch(/removed its folder/);
}, 150_000);
