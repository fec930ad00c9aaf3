// File access inside the session's container, through short execs: `cat` out (bytes, so binary
// files survive), `cat` in from stdin then an atomic rename, `stat`, and a bounded `find` for walks.
// Execs see the container's own mounts (a tmpfs /tmp included), which the archive API does not.
import path from 'node:path';
import type Docker from 'dockerode';
import { parseRealPathOutput, parseRealPathsOutput, REAL_PATH_SCRIPT, REAL_PATHS_SCRIPT } from '../real-path';
import { filesOfFindWalk, findWalkCommand, findWalkOutputBytes } from '../shell/find-walk';
import { fileTooLarge, MAX_READ_BYTES, type FileStat, type WalkOptions, type Workspace } from '../workspace';
import { captureExec } from './run-exec';

const posix = path.posix;

/**
 * Regular files only (a FIFO would block, a device never end), and at most `$2` bytes of one. A
 * script of the container's can swap the file for a FIFO after the look, and opening that waits
 * for a writer: the open gets `$3` seconds (a watchdog then kills the script, exit 137), and what
 * was opened is looked at again before it is read.
 */
const READ_SCRIPT = [
  'if [ -d "$1" ]; then exit 21; fi; [ -e "$1" ] || exit 2; [ -f "$1" ] || exit 22',
  // Stopped once the open is done, its sleep with it (no process stays behind for $3 seconds).
  `(trap 'kill $nap; exit' TERM; sleep "$3" & nap=$!; wait $nap && kill -KILL $$) </dev/null >/dev/null 2>&1 & watchdog=$!`,
  'exec 3<"$1" || { kill $watchdog; exit 1; }',
  'kill $watchdog',
  '[ -f /dev/fd/3 ] || exit 22',
  'exec head -c "$2" <&3',
].join('\n');
/** Exit code of a read whose open was stopped by its watchdog (128 + SIGKILL). */
const OPEN_WAITED = 137;
/** How long opening a file may wait before the read is refused (a regular file's open does not wait). */
const OPEN_WAIT_SECONDS = 5;
/** Writes beside the target, keeps an existing file's mode, then renames over it. */
const WRITE_SCRIPT = [
  'set -e',
  'mkdir -p -- "$(dirname -- "$1")"',
  'tmp="$1.hermes-tmp-$$"',
  'cat > "$tmp" || { rm -f -- "$tmp"; exit 1; }',
  'if [ -e "$1" ]; then chmod --reference="$1" -- "$tmp" 2>/dev/null || true; fi',
  'mv -f -- "$tmp" "$1"',
].join('\n');
const STAT_SCRIPT = 'exec stat -L -c "%F|%s|%Y" -- "$1"';
const ERROR_CODES: [RegExp, string][] = [
  [/Not a directory/i, 'ENOTDIR'],
  [/Is a directory/i, 'EISDIR'],
  [/Permission denied/i, 'EACCES'],
  [/Operation not permitted/i, 'EPERM'],
  [/No space left/i, 'ENOSPC'],
  [/Read-only file system/i, 'EROFS'],
  [/File exists/i, 'EEXIST'],
  [/No such file/i, 'ENOENT'],
];

/** An fs-style error (with `code`), so file tools describe it the same on every backend. */
function fileError(code: string, target: string, detail: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`${code}: ${detail.trim() || 'failed'}, '${target}'`);
  error.code = code;
  error.path = target;
  return error;
}

function errorFromStderr(stderr: string, target: string): NodeJS.ErrnoException {
  const code = ERROR_CODES.find(([pattern]) => pattern.test(stderr))?.[1] ?? 'EIO';
  return fileError(code, target, stderr);
}

export interface DockerWorkspaceOptions {
  /** How long one file command may take before the tool reports ETIMEDOUT (default 120 s). */
  timeoutMs?: number;
  /** How long opening a file to read may wait (a FIFO swapped in) before the read is refused (default 5 s). */
  openWaitSeconds?: number;
  /** Told each file written, once it is in place (a container path). */
  onWritten?: (absolute: string) => void;
}

export class DockerWorkspace implements Workspace {
  constructor(
    private readonly container: Docker.Container,
    readonly cwd: string,
    private readonly home = '/root',
    private readonly options: DockerWorkspaceOptions = {},
  ) {}

  resolve(target: string): string {
    if (target === '~' || target.startsWith('~/')) return posix.join(this.home, target.slice(1));
    return posix.resolve(this.cwd, target);
  }

  async readFile(target: string, maxBytes = MAX_READ_BYTES): Promise<Buffer> {
    const absolute = this.resolve(target);
    // One byte more than allowed tells a file that is too large; the worker keeps no more than that.
    const openWait = String(this.options.openWaitSeconds ?? OPEN_WAIT_SECONDS);
    const result = await this.exec(absolute, ['bash', '-c', READ_SCRIPT, 'hermes-file', absolute, String(maxBytes + 1), openWait], undefined, maxBytes + 1);
    if (result.exitCode === 21) throw fileError('EISDIR', absolute, 'illegal operation on a directory');
    if (result.exitCode === 2) throw fileError('ENOENT', absolute, 'no such file or directory');
    if (result.exitCode === 22) throw fileError('EINVAL', absolute, 'not a regular file');
    if (result.exitCode === OPEN_WAITED && result.stdout.length === 0) throw fileError('EINVAL', absolute, `not a regular file: its open waited ${openWait} s (a FIFO)`);
    if (result.stdout.length > maxBytes) throw fileTooLarge(absolute, maxBytes);
    if (result.exitCode !== 0) throw errorFromStderr(result.stderr, absolute);
    return result.stdout;
  }

  async writeFile(target: string, content: string): Promise<void> {
    const absolute = this.resolve(target);
    const result = await this.run(WRITE_SCRIPT, absolute, Buffer.from(content, 'utf8'));
    if (result.exitCode !== 0) throw errorFromStderr(result.stderr, absolute);
    this.options.onWritten?.(absolute);
  }

  async stat(target: string): Promise<FileStat | null> {
    const result = await this.run(STAT_SCRIPT, this.resolve(target));
    if (result.exitCode !== 0) return null;
    const [kind = '', size = '0', modified = '0'] = result.stdout.toString('utf8').trim().split('|');
    const type = kind.includes('regular') ? 'file' : kind === 'directory' ? 'directory' : 'other';
    return { type, size: Number(size), modifiedMs: Number(modified) * 1000 };
  }

  async realpath(target: string): Promise<string> {
    const absolute = this.resolve(target);
    // sh, not bash: the script is POSIX and minimal images may lack bash.
    const result = await this.exec(absolute, ['sh', '-c', REAL_PATH_SCRIPT, 'hermes-realpath', absolute]);
    if (result.exitCode !== 0) throw errorFromStderr(result.stderr || 'ELOOP', absolute);
    return parseRealPathOutput(result.stdout.toString('utf8'), absolute);
  }

  async realpaths(targets: readonly string[]): Promise<(string | undefined)[]> {
    const absolute = targets.map((target) => this.resolve(target));
    if (!absolute.length) return [];
    const result = await this.exec(absolute[0]!, ['sh', '-c', REAL_PATHS_SCRIPT, 'hermes-realpath', ...absolute]).catch(() => undefined);
    return result?.exitCode === 0 ? parseRealPathsOutput(result.stdout.toString('utf8'), absolute) : absolute.map(() => undefined);
  }

  /** One bounded `find` for the whole tree (see find-walk.ts). */
  async *walk(root: string, options: WalkOptions): AsyncIterable<string> {
    const start = this.resolve(root);
    const info = await this.stat(start);
    if (info?.type === 'file') {
      yield start;
      return;
    }
    if (info?.type !== 'directory') return;
    // The worker keeps no more than the command may print, even if the container's `head` lies.
    const result = await this.exec(start, ['sh', '-c', findWalkCommand(start, options)], undefined, findWalkOutputBytes(options));
    for (const file of filesOfFindWalk(result.stdout.toString('utf8'), options)) yield file;
  }

  private run(script: string, target: string, input?: Buffer) {
    return this.exec(target, ['bash', '-c', script, 'hermes-file', target], input);
  }

  /** `target` names the file in errors. */
  private async exec(target: string, cmd: string[], input?: Buffer, maxStdoutBytes = MAX_READ_BYTES) {
    try {
      return await captureExec(this.container, cmd, { ...(input ? { input } : {}), maxStdoutBytes, ...(this.options.timeoutMs === undefined ? {} : { timeoutMs: this.options.timeoutMs }) });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ETIMEDOUT') throw fileError('ETIMEDOUT', target, (error as Error).message);
      throw error;
    }
  }
}
