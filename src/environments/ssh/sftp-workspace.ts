// File tools on the SSH host, over the connection's one SFTP session (OpenSSH counts it as a
// channel, so it is shared rather than opened per call).
import { randomBytes } from 'node:crypto';
import path from 'node:path/posix';
import type { FileEntryWithStats, SFTPWrapper, Stats } from 'ssh2';
import { readUpTo } from '../bounded-read';
import { resolveRealPath } from '../real-path';
import { cutShortReporter, fileTooLarge, MAX_READ_BYTES, MAX_WALK_BYTES, MAX_WALK_ENTRIES, type FileStat, type WalkOptions, type Workspace } from '../workspace';

/** SFTP servers answer reads of at most about 32-256 KiB (OpenSSH: 256 KiB). */
const READ_CHUNK_BYTES = 64 * 1024;

/** SFTP status codes as the errno names the file tools explain. */
const SFTP_STATUS_CODES: Record<number, string> = { 2: 'ENOENT', 3: 'EACCES', 8: 'EOPNOTSUPP' };

export class SftpWorkspace implements Workspace {
  constructor(
    readonly cwd: string,
    private readonly home: string,
    private readonly withSftp: <T>(operation: (sftp: SFTPWrapper) => Promise<T>) => Promise<T>,
  ) {}

  resolve(target: string): string {
    if (target === '~' || target.startsWith('~/')) return path.join(this.home, target.slice(1));
    return path.resolve(this.cwd, target);
  }

  /**
   * Regular files only, read in pieces up to `maxBytes`: ssh2's readFile reads a device such as
   * /dev/zero (or a file growing as it is read) for ever into the worker's memory.
   */
  readFile(target: string, maxBytes = MAX_READ_BYTES): Promise<Buffer> {
    const absolute = this.resolve(target);
    return this.withSftp(async (sftp) => {
      // Before the open too: the server's open of a FIFO would wait for a writer, and hold the
      // connection's one SFTP session while it waits.
      regularFileOf(absolute, await call<Stats>((done) => sftp.stat(absolute, done)), maxBytes);
      const handle = await call<Buffer>((done) => sftp.open(absolute, 'r', done));
      try {
        regularFileOf(absolute, await call<Stats>((done) => sftp.fstat(handle, done)), maxBytes);
        const readAt = (buffer: Buffer, length: number, position: number) =>
          call<number>((done) => sftp.read(handle, buffer, 0, length, position, (error, read) => done(error, read)));
        const content = await readUpTo(readAt, maxBytes, READ_CHUNK_BYTES);
        if (!content) throw fileTooLarge(absolute, maxBytes);
        return content;
      } finally {
        await call((done) => sftp.close(handle, done)).catch(() => undefined);
      }
    });
  }

  /** Writes through a temporary file and a rename, so readers never see half a file. */
  writeFile(target: string, content: string | Buffer): Promise<void> {
    return this.withSftp((sftp) => this.writeThroughTemporary(sftp, this.resolve(target), content));
  }

  private async writeThroughTemporary(sftp: SFTPWrapper, absolute: string, content: string | Buffer): Promise<void> {
    await this.makeDirectories(sftp, path.dirname(absolute));
    const existing = await this.statOf(sftp, absolute);
    const temporary = `${absolute}.hermes-tmp-${randomBytes(4).toString('hex')}`;
    try {
      await call((done) => sftp.writeFile(temporary, content, existing ? { mode: existing.mode & 0o7777 } : {}, done));
      await call((done) => sftp.ext_openssh_rename(temporary, absolute, done)).catch(async (error: unknown) => {
        // Without the OpenSSH extension, plain SFTP rename refuses to replace an existing file.
        if ((error as { code?: unknown }).code !== 'EOPNOTSUPP' && !/not support/i.test(String(error))) throw error;
        await call((done) => sftp.unlink(absolute, done)).catch(() => undefined);
        await call((done) => sftp.rename(temporary, absolute, done));
      });
    } catch (error) {
      await call((done) => sftp.unlink(temporary, done)).catch(() => undefined);
      throw error;
    }
  }

  async stat(target: string): Promise<FileStat | null> {
    const info = await this.withSftp((sftp) => this.statOf(sftp, this.resolve(target)));
    if (!info) return null;
    const type = info.isFile() ? 'file' : info.isDirectory() ? 'directory' : 'other';
    return { type, size: info.size, modifiedMs: info.mtime * 1000 };
  }

  /** SFTP's realpath follows links of existing paths; dangling links and missing files are walked up. */
  realpath(target: string): Promise<string> {
    return this.withSftp((sftp) =>
      resolveRealPath(this.resolve(target), {
        realpath: async (absolute) => {
          // OpenSSH answers realpath for a missing last component too: check existence first.
          if (!(await this.statOf(sftp, absolute).catch(() => null))) return null;
          return call<string>((done) => sftp.realpath(absolute, done)).catch(() => null);
        },
        readlink: (absolute) => call<string>((done) => sftp.readlink(absolute, done)).catch(() => null),
      }),
    );
  }

  async *walk(root: string, options: WalkOptions): AsyncIterable<string> {
    const maxEntries = options.maxEntries ?? MAX_WALK_ENTRIES;
    const maxBytes = options.maxBytes ?? MAX_WALK_BYTES;
    const budget = { entries: maxEntries, bytes: maxBytes };
    const list = (directory: string) => this.withSftp((sftp) => listDirectory(sftp, directory, budget));
    const reportCut = cutShortReporter(options);
    let remaining = options.maxFiles;
    const visit = async function* (directory: string): AsyncGenerator<string> {
      if (budget.entries <= 0) return reportCut('entries', maxEntries);
      if (budget.bytes <= 0) return reportCut('bytes', maxBytes);
      let listing;
      try {
        listing = await list(directory);
      } catch {
        return;
      }
      if (listing.cutShort) reportCut(listing.cutShort, listing.cutShort === 'entries' ? maxEntries : maxBytes);
      const entries = listing.entries;
      entries.sort((a, b) => a.filename.localeCompare(b.filename));
      for (const entry of entries) {
        if (remaining <= 0) return;
        if (entry.filename === '.' || entry.filename === '..') continue;
        const full = path.join(directory, entry.filename);
        // readdir reports the entries themselves (like lstat): symbolic links are not followed.
        if (entry.attrs.isDirectory()) {
          if (!options.skipDirectories.has(entry.filename)) yield* visit(full);
        } else if (entry.attrs.isFile()) {
          remaining -= 1;
          yield full;
        }
      }
    };
    const start = this.resolve(root);
    const info = await this.stat(start);
    if (info?.type === 'file') yield start;
    else if (info?.type === 'directory') yield* visit(start);
  }

  private async statOf(sftp: SFTPWrapper, absolute: string): Promise<Stats | null> {
    return call<Stats>((done) => sftp.stat(absolute, done)).catch((error: unknown) => {
      if ((error as { code?: unknown }).code === 'ENOENT') return null;
      throw error;
    });
  }

  /** `mkdir -p` over SFTP. */
  private async makeDirectories(sftp: SFTPWrapper, directory: string): Promise<void> {
    const info = await this.statOf(sftp, directory);
    if (info?.isDirectory()) return;
    if (info) throw Object.assign(new Error(`${directory} is not a directory`), { code: 'ENOTDIR' });
    await this.makeDirectories(sftp, path.dirname(directory));
    await call((done) => sftp.mkdir(directory, done)).catch(async (error: unknown) => {
      // Another writer may have made it in between.
      if (!(await this.statOf(sftp, directory))?.isDirectory()) throw error;
    });
  }
}

/** SSH_FX_EOF: a directory handle has no more entries. */
const SFTP_EOF = 1;

/**
 * A directory's entries (`.` and `..` left out), in the server's batches, as far as `budget` (the
 * walk's entries and bytes of names still allowed, spent here) goes: ssh2's readdir of a path
 * reads every one, and a folder of millions of names, or of long ones, would fill the worker.
 */
async function listDirectory(sftp: SFTPWrapper, directory: string, budget: { entries: number; bytes: number }): Promise<{ entries: FileEntryWithStats[]; cutShort?: 'entries' | 'bytes' }> {
  const handle = await call<Buffer>((done) => sftp.opendir(directory, done));
  const entries: FileEntryWithStats[] = [];
  try {
    for (;;) {
      const batch = await new Promise<FileEntryWithStats[] | undefined>((resolve, reject) => {
        sftp.readdir(handle, (error, list) => {
          if ((error as { code?: unknown } | undefined)?.code === SFTP_EOF) resolve(undefined);
          else if (error) reject(error);
          else resolve(list);
        });
      });
      if (!batch) return { entries };
      for (const entry of batch) {
        if (entry.filename === '.' || entry.filename === '..') continue;
        if (budget.entries <= 0) return { entries, cutShort: 'entries' };
        // What the server sent for it: the name and its `ls -l` line.
        budget.bytes -= Buffer.byteLength(entry.filename) + Buffer.byteLength(entry.longname);
        if (budget.bytes < 0) return { entries, cutShort: 'bytes' };
        budget.entries -= 1;
        entries.push(entry);
      }
    }
  } finally {
    await call((done) => sftp.close(handle, done)).catch(() => undefined);
  }
}

/** Throws unless `info` is a regular file of at most `maxBytes` (EISDIR, EINVAL, EFBIG). */
function regularFileOf(absolute: string, info: Stats, maxBytes: number): void {
  if (info.isDirectory()) throw Object.assign(new Error(`EISDIR: ${absolute} is a directory`), { code: 'EISDIR' });
  if (!info.isFile()) throw Object.assign(new Error(`EINVAL: ${absolute} is not a regular file`), { code: 'EINVAL' });
  if (info.size > maxBytes) throw fileTooLarge(absolute, maxBytes);
}

/** A node-style SFTP call as a promise, with SFTP status codes turned into errno names. */
function call<T = void>(start: (done: (error: Error | undefined | null, value?: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    start((error, value) => {
      if (error) {
        const status = (error as { code?: unknown }).code;
        const code = typeof status === 'number' ? SFTP_STATUS_CODES[status] : undefined;
        reject(code ? Object.assign(error, { code, sftpStatus: status }) : error);
      } else {
        resolve(value as T);
      }
    });
  });
}
