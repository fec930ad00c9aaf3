// Workspace on this machine's filesystem. A file tool's paths are judged by the approval gate
// before the tool runs; a pinned view also judges what it opened, so a symbolic link swapped in
// between (by a background process of the agent's) cannot redirect the read or the write.
import { constants } from 'node:fs';
import { mkdir, open, readlink, realpath, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { makeRealFolders } from './folder-beneath';
import { listWithin, readWithin } from './no-follow';
import { isWithin } from './path-within';
import { resolveRealPath } from './real-path';
import { fileTooLarge, MAX_READ_BYTES, MAX_WALK_BYTES, MAX_WALK_ENTRIES, cutShortReporter, type FileStat, type WalkOptions, type Workspace } from './workspace';
import { readUpTo } from './bounded-read';

export class LocalWorkspace implements Workspace {
  /**
   * @param afterWrite called once a file tool's write is in place (the local backend's disarm step)
   * @param checked real paths the gate judged for this call; anything opened must be one, or inside one
   */
  constructor(
    readonly cwd: string,
    private readonly afterWrite?: (written: string) => void,
    private readonly checked?: readonly string[],
  ) {}

  pinned(checked: readonly string[]): Workspace {
    return new LocalWorkspace(this.cwd, this.afterWrite, checked);
  }

  resolve(target: string): string {
    if (target === '~' || target.startsWith('~/')) return path.join(os.homedir(), target.slice(1));
    return path.resolve(this.cwd, target);
  }

  /** Regular files only: a FIFO or a device would hold one of libuv's four threads (or read forever). */
  async readFile(target: string, maxBytes = MAX_READ_BYTES): Promise<Buffer> {
    const file = await open(this.resolve(target), constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const info = await file.stat();
      if (!info.isFile()) throw Object.assign(new Error(`${target} is not a regular file`), { code: 'EINVAL' });
      if (info.size > maxBytes) throw fileTooLarge(target, maxBytes);
      await this.verifyOpened(file, (real) => real, target);
      // The file may grow while it is read: the limit holds for what is read, not only for the size seen.
      const content = await readUpTo(file, maxBytes);
      if (!content) throw fileTooLarge(target, maxBytes);
      return content;
    } finally {
      await file.close();
    }
  }

  /**
   * Writes through a temporary file and a rename, so readers never see half a file. Pinned, it
   * writes where the gate judged the path to lead (through a link, as `>` in a shell would).
   */
  async writeFile(target: string, content: string): Promise<void> {
    const absolute = this.checked ? await this.realpath(target) : this.resolve(target);
    if (this.checked) {
      // Judged by where it leads now, before a folder is made for it: a folder swapped for a link
      // since the check would get the new folders, outside, even though the write is refused.
      this.refuseUnlessChecked(absolute, target);
      makeRealFolders(path.dirname(absolute));
    } else {
      await mkdir(path.dirname(absolute), { recursive: true });
    }
    const temporary = `${absolute}.hermes-tmp-${process.pid}-${Date.now()}`;
    const mode = await stat(absolute).then((existing) => existing.mode, () => undefined);
    // O_EXCL: a fresh file, never one a link named like it leads to.
    const file = await open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode ?? 0o666);
    try {
      await this.verifyOpened(file, (real) => path.join(path.dirname(real), path.basename(absolute)), target);
      await file.writeFile(content);
      if (mode !== undefined) await file.chmod(mode);
    } catch (error) {
      await file.close();
      await rm(temporary, { force: true });
      throw error;
    }
    await file.close();
    // The folder swapped since the check: the rename finds no temporary file there and fails.
    await rename(temporary, absolute);
    this.afterWrite?.(absolute);
  }

  /** Refuses a file this pinned view opened that is not where the gate's judgement applies. */
  private async verifyOpened(file: FileHandle, landing: (real: string) => string, target: string): Promise<void> {
    if (!this.checked) return;
    const real = await openedPath(file);
    if (real === undefined) return;
    this.refuseUnlessChecked(landing(real), target);
  }

  private refuseUnlessChecked(lands: string, target: string): void {
    if (this.checked && !this.checked.some((checked) => isWithin(lands, checked))) {
      throw Object.assign(new Error(`${target} now leads to ${lands}, not to the path that was checked before this call was allowed; nothing was read or written`), {
        code: 'EPERM',
      });
    }
  }

  async stat(target: string): Promise<FileStat | null> {
    try {
      const info = await stat(this.resolve(target));
      const type = info.isFile() ? 'file' : info.isDirectory() ? 'directory' : 'other';
      return { type, size: info.size, modifiedMs: info.mtimeMs };
    } catch {
      return null;
    }
  }

  /** Only "no such file" means "not there yet"; any other failure (a path too long to resolve, a loop) is an error. */
  realpath(target: string): Promise<string> {
    return resolveRealPath(this.resolve(target), {
      realpath: (absolute) => realpath(absolute).catch(absentOr(null)),
      readlink: (absolute) => readlink(absolute).catch(absentOr(null, 'EINVAL')),
    });
  }

  /** Never follows a link below `root`, even one swapped in for a folder while the walk runs. */
  async *walk(root: string, options: WalkOptions): AsyncIterable<string> {
    let remaining = options.maxFiles;
    const maxEntries = options.maxEntries ?? MAX_WALK_ENTRIES;
    let entriesLeft = maxEntries;
    const start = this.resolve(root);
    const within = await realpath(start).catch(() => null);
    if (within === null) return;
    const maxBytes = options.maxBytes ?? MAX_WALK_BYTES;
    let bytesLeft = maxBytes;
    const reportCut = cutShortReporter(options);
    const visit = async function* (directory: string, opened: string): AsyncGenerator<string> {
      if (entriesLeft <= 0) return reportCut('entries', maxEntries);
      if (bytesLeft <= 0) return reportCut('bytes', maxBytes);
      // One more than the budget tells a folder that holds more than the walk may read.
      const entries = await listWithin(opened, within, entriesLeft + 1);
      if (!entries) return;
      if (entries.length > entriesLeft) {
        entries.length = entriesLeft;
        reportCut('entries', maxEntries);
      }
      entriesLeft -= entries.length;
      // Names are short here (255 bytes at most), but the bound means the same on every backend.
      let kept = 0;
      for (const entry of entries) {
        bytesLeft -= Buffer.byteLength(entry.name);
        if (bytesLeft < 0) break;
        kept += 1;
      }
      if (kept < entries.length) {
        entries.length = kept;
        reportCut('bytes', maxBytes);
      }
      entries.sort((a, b) => a.name.localeCompare(b.name));
      for (const entry of entries) {
        if (remaining <= 0) return;
        const full = path.join(directory, entry.name);
        if (entry.isDirectory()) {
          if (!options.skipDirectories.has(entry.name)) yield* visit(full, full);
        } else if (entry.isFile()) {
          remaining -= 1;
          yield full;
        }
      }
    };
    const info = await this.stat(start);
    if (info?.type === 'file') yield start;
    // The root itself may be named through a link (the gate judged where it leads): opened by its real path.
    else if (info?.type === 'directory') yield* visit(start, within);
  }

  readWithin(file: string, within: string, maxBytes: number): Promise<{ content: Buffer; realPath: string } | null> {
    return readWithin(this.resolve(file), within, maxBytes);
  }
}

/** Where an open file really is, from the kernel (Linux's /proc); undefined where that is not known. */
async function openedPath(file: FileHandle): Promise<string | undefined> {
  if (process.platform !== 'linux') return undefined;
  return readlink(`/proc/self/fd/${file.fd}`);
}

/** `fallback` for the errors that mean the path is simply not there (or, for readlink, not a link); others rethrown. */
function absentOr<T>(fallback: T, ...alsoAbsent: string[]): (error: NodeJS.ErrnoException) => T {
  return (error) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR' || alsoAbsent.includes(error.code ?? '')) return fallback;
    throw error;
  };
}
