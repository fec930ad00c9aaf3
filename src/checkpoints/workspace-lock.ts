// One snapshot or rollback at a time per workspace: the calls of one turn, other sessions on the
// same folder, other workers on this machine and the CLI all take this lock file in the shadow
// repository. A holder that died leaves a file older than any run could take: it is broken.
import { mkdir, open, stat, unlink } from 'node:fs/promises';
import path from 'node:path';

export class LockTimeout extends Error {
  override readonly name = 'LockTimeout';
}

/** Runs `work` holding the lock of `gitDirectory`; waits at most `waitMs` for it. */
export async function withWorkspaceLock<T>(gitDirectory: string, options: { waitMs: number; staleMs: number }, work: () => Promise<T>): Promise<T> {
  const lockFile = path.join(gitDirectory, 'hermes-checkpoint.lock');
  await mkdir(gitDirectory, { recursive: true, mode: 0o700 });
  const deadline = Date.now() + options.waitMs;
  let delayMs = 5;
  for (;;) {
    try {
      const handle = await open(lockFile, 'wx', 0o600);
      await handle.writeFile(String(process.pid)).finally(() => handle.close());
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const age = await stat(lockFile).then((info) => Date.now() - info.mtimeMs, () => 0);
    if (age > options.staleMs) {
      await unlink(lockFile).catch(() => undefined);
      continue;
    }
    if (Date.now() > deadline) throw new LockTimeout(`another snapshot of this workspace held ${lockFile} for over ${Math.round(options.waitMs / 1000)}s`);
    await new Promise((resolve) => setTimeout(resolve, delayMs + Math.random() * delayMs));
    delayMs = Math.min(delayMs * 2, 100);
  }
  try {
    return await work();
  } finally {
    await unlink(lockFile).catch(() => undefined);
  }
}
