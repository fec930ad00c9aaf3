// Memory documents as files (`<home>/memories/MEMORY.md`, `USER.md`): each change is made under
// an exclusive lock file and written to a temporary file renamed over the old one, so readers
// see the old or the new text, never half of it, and concurrent writers take turns.
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { MEMORY_FILE_NAMES, type MemoryChange, type MemoryDocuments, type MemoryTarget } from './memory-documents';

/** A lock older than this was left by a process that died holding it: changes take milliseconds. */
const STALE_LOCK_MS = 30_000;
const LOCK_WAIT_MS = 15_000;

export class MemoryFiles implements MemoryDocuments {
  constructor(readonly directory: string) {}

  fileOf(target: MemoryTarget): string {
    return path.join(this.directory, MEMORY_FILE_NAMES[target]);
  }

  async read(target: MemoryTarget): Promise<string> {
    return readText(this.fileOf(target));
  }

  async update<T>(target: MemoryTarget, change: (text: string, backup: () => Promise<string>) => MemoryChange<T> | Promise<MemoryChange<T>>): Promise<T> {
    // Private to the worker's user: the notes are the user's, and later steer every session.
    await mkdir(this.directory, { recursive: true, mode: 0o700 });
    const file = this.fileOf(target);
    const release = await acquireLock(`${file}.lock`);
    try {
      const text = await readText(file);
      const backup = async () => {
        const backupFile = `${file}.bak.${Math.floor(Date.now() / 1000)}`;
        await writeFile(backupFile, text, { mode: 0o600 });
        return backupFile;
      };
      const decided = await change(text, backup);
      if (decided.write !== undefined) await writeAtomically(file, decided.write);
      return decided.result;
    } finally {
      await release();
    }
  }
}

async function readText(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  }
}

async function writeAtomically(file: string, text: string): Promise<void> {
  const temporary = path.join(path.dirname(file), `.mem_${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temporary, 'w', 0o600);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/** Takes the lock by creating its file exclusively; waits (bounded) while another holder has it. */
async function acquireLock(lockFile: string): Promise<() => Promise<void>> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  let delayMs = 5;
  for (;;) {
    try {
      const handle = await open(lockFile, 'wx', 0o600);
      await handle.writeFile(String(process.pid));
      await handle.close();
      return () => unlink(lockFile).catch(() => undefined);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const age = await stat(lockFile).then((info) => Date.now() - info.mtimeMs, () => 0);
    if (age > STALE_LOCK_MS) {
      await unlink(lockFile).catch(() => undefined);
      continue;
    }
    if (Date.now() > deadline) throw new Error(`Timed out waiting for the memory lock ${lockFile}`);
    await new Promise((resolve) => setTimeout(resolve, delayMs + Math.random() * delayMs));
    delayMs = Math.min(delayMs * 2, 100);
  }
}
