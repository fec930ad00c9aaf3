// A stand-in for a script of the model's still running in the workspace: it swaps a folder and a
// link (renameat2 RENAME_EXCHANGE, atomic) back and forth as fast as it can, for at most 60 s.
// `started` resolves once it swaps (with `after`, once it waits for that file).
import { spawn } from 'node:child_process';

/** `after`: a file whose appearance starts the swaps (a step of the code under test), polled for at most 60 s. */
export function startSwapping(first: string, second: string, after?: string) {
  const script = [
    'import ctypes, os, sys, time',
    'libc = ctypes.CDLL(None, use_errno=True)',
    'a, b = os.fsencode(sys.argv[1]), os.fsencode(sys.argv[2])',
    'end = time.time() + 60',
    'if len(sys.argv) > 3:',
    '    print("waiting", flush=True)',
    '    while not os.path.exists(sys.argv[3]) and time.time() < end: time.sleep(0.0002)',
    'libc.renameat2(-100, a, -100, b, 2)',
    'print("swapping", flush=True)',
    'while time.time() < end:',
    '    for _ in range(1000): libc.renameat2(-100, a, -100, b, 2)',
  ].join('\n');
  const swapper = spawn('python3', ['-c', script, first, second, ...(after ? [after] : [])], { stdio: ['ignore', 'pipe', 'inherit'] });
  const started = new Promise((resolve) => swapper.stdout.once('data', resolve));
  const stop = async () => {
    swapper.kill('SIGKILL');
    if (swapper.exitCode === null && swapper.signalCode === null) await new Promise((resolve) => swapper.once('exit', resolve));
  };
  return { swapper, started, stop };
}
