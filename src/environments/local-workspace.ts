// Workspace on this machine's filesystem.
import { mkdir, readdir, readFile, readlink, realpath, rename, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { resolveRealPath } from './real-path';
import type { FileStat, WalkOptions, Workspace } from './workspace';

export class LocalWorkspace implements Workspace {
  constructor(readonly cwd: string) {}

  resolve(target: string): string {
    if (target === '~' || target.startsWith('~/')) return path.join(os.homedir(), target.slice(1));
    return path.resolve(this.cwd, target);
  }

  readFile(target: string): Promise<Buffer> {
    return readFile(this.resolve(target));
  }

  /** Writes through a temporary file and a rename, so readers never see half a file. */
  async writeFile(target: string, content: string): Promise<void> {
    const absolute = this.resolve(target);
    await mkdir(path.dirname(absolute), { recursive: true });
    const temporary = `${absolute}.hermes-tmp-${process.pid}-${Date.now()}`;
    const mode = await stat(absolute).then((existing) => existing.mode, () => undefined);
    await writeFile(temporary, content, mode === undefined ? {} : { mode });
    await rename(temporary, absolute);
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

  realpath(target: string): Promise<string> {
    return resolveRealPath(this.resolve(target), {
      realpath: (absolute) => realpath(absolute).catch(() => null),
      readlink: (absolute) => readlink(absolute).catch(() => null),
    });
  }

  async *walk(root: string, options: WalkOptions): AsyncIterable<string> {
    let remaining = options.maxFiles;
    const visit = async function* (directory: string): AsyncGenerator<string> {
      let entries;
      try {
        entries = await readdir(directory, { withFileTypes: true });
      } catch {
        return;
      }
      entries.sort((a, b) => a.name.localeCompare(b.name));
      for (const entry of entries) {
        if (remaining <= 0) return;
        const full = path.join(directory, entry.name);
        if (entry.isDirectory()) {
          if (!options.skipDirectories.has(entry.name)) yield* visit(full);
        } else if (entry.isFile()) {
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
}
