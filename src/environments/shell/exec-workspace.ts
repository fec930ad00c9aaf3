// File access inside a sandbox through its shell: `base64` to read, base64 heredocs to write
// (chunked, so no single exec carries more than a few tens of KiB), `stat` and `find` to look
// around. Works wherever bash and coreutils do, so every sandbox backend shares it.
import path from 'node:path';
import { shellQuote } from '../shell-quote';
import type { ExecRequest, ExecResult } from '../terminal-environment';
import { parseRealPathOutput, parseRealPathsOutput, REAL_PATH_SCRIPT, REAL_PATHS_SCRIPT } from '../real-path';
import { filesOfFindWalk, findWalkCommand, findWalkOutputBytes } from './find-walk';
import { fileTooLarge, MAX_READ_BYTES, type FileStat, type WalkOptions, type Workspace } from '../workspace';

type Exec = (request: ExecRequest) => Promise<ExecResult>;

const FILE_TIMEOUT_MS = 120_000;
/** Raw bytes per write exec: base64 makes it ~43 KiB, well under exec argument limits (Modal: 64 KiB). */
const DEFAULT_CHUNK_BYTES = 32 * 1024;
/** How long opening a file may wait before a read is refused (a regular file's open does not wait). */
const OPEN_WAIT_SECONDS = 5;
/** Exit status of a read whose open its watchdog stopped (128 + SIGKILL). */
const OPEN_WAITED = 137;
/** What the worker keeps of a command that is no read or walk (stat, realpath, errors): they print little. */
const MAX_OUTPUT_CHARS = 1024 * 1024;

/** The characters `base64` prints for `bytes` bytes (76 to a line), and room for an error line. */
function base64Chars(bytes: number): number {
  const encoded = Math.ceil(bytes / 3) * 4;
  return encoded + Math.ceil(encoded / 76) + 1024;
}

export class ExecWorkspace implements Workspace {
  constructor(
    private readonly exec: Exec,
    readonly cwd: string,
    private readonly home = '/root',
    private readonly chunkBytes = DEFAULT_CHUNK_BYTES,
    /** How long opening a file to read may wait (a FIFO swapped in) before the read is refused. */
    private readonly openWaitSeconds = OPEN_WAIT_SECONDS,
  ) {}

  resolve(target: string): string {
    if (target === '~' || target.startsWith('~/')) return path.posix.join(this.home, target.slice(1));
    return path.posix.resolve(this.cwd, target);
  }

  /**
   * Regular files only, and one byte past `maxBytes` at most is sent: a device would never end. A
   * script of the sandbox's can swap the file for a FIFO after the look, and opening that waits
   * for a writer: the open gets `openWaitSeconds` in a subshell that a watchdog then kills (the
   * subshell only: the sandbox's shell goes on), and what was opened is looked at again.
   */
  async readFile(target: string, maxBytes = MAX_READ_BYTES): Promise<Buffer> {
    const file = shellQuote(this.resolve(target));
    const script = [
      `if [ ! -e ${file} ]; then echo ENOENT; exit 3; elif [ -d ${file} ]; then echo EISDIR; exit 3; elif [ ! -f ${file} ]; then echo EINVAL; exit 3; fi`,
      `(me=$BASHPID; (trap 'kill $nap 2>/dev/null; exit' TERM; sleep ${this.openWaitSeconds} & nap=$!; wait $nap && kill -KILL $me) </dev/null >/dev/null 2>&1 & watchdog=$!`,
      // An unreadable file fails here, with the shell's "Permission denied" (EACCES).
      ` exec 3< ${file} || { kill $watchdog; exit 1; }`,
      ' kill $watchdog',
      // Without /dev/fd the open at least did not wait, and the read below is bounded all the same.
      ' [ ! -e /dev/fd/3 ] || [ -f /dev/fd/3 ] || { echo EINVAL; exit 3; }',
      ` head -c ${maxBytes + 1} <&3 | base64)`,
      `status=$?; [ $status -ne ${OPEN_WAITED} ] || echo 'EINVAL: not a regular file: its open waited ${this.openWaitSeconds} s (a FIFO)'; exit $status`,
    ].join('\n');
    const result = await this.run(script, base64Chars(maxBytes + 1));
    if (result.exitCode !== 0) throw fileError(result.output, `Cannot read ${target}`);
    const content = Buffer.from(result.output.replace(/\s+/g, ''), 'base64');
    if (content.length > maxBytes) throw fileTooLarge(this.resolve(target), maxBytes);
    return content;
  }

  /** Writes through a temporary file and a rename (keeping the old mode), so readers never see half a file. */
  async writeFile(target: string, content: string): Promise<void> {
    const absolute = this.resolve(target);
    const file = shellQuote(absolute);
    const temporary = shellQuote(`${absolute}.hermes-tmp-${Date.now()}-${Math.random().toString(16).slice(2, 8)}`);
    const bytes = Buffer.from(content, 'utf8');
    const chunks: Buffer[] = [];
    for (let offset = 0; offset < bytes.length; offset += this.chunkBytes) chunks.push(bytes.subarray(offset, offset + this.chunkBytes));
    if (chunks.length === 0) chunks.push(Buffer.alloc(0));
    for (const [index, chunk] of chunks.entries()) {
      const first = index === 0;
      const last = index === chunks.length - 1;
      const script = [
        ...(first ? [`mkdir -p -- "$(dirname -- ${file})" || exit 1`] : []),
        `base64 -d ${first ? '>' : '>>'} ${temporary} <<'__HERMES_B64__' || exit 1`,
        chunk.toString('base64').replace(/.{76}/g, '$&\n'),
        '__HERMES_B64__',
        ...(last ? [`if [ -e ${file} ]; then chmod --reference=${file} ${temporary} 2>/dev/null; fi`, `mv -f -- ${temporary} ${file} || exit 1`] : []),
      ].join('\n');
      const result = await this.run(script);
      if (result.exitCode !== 0) {
        await this.run(`rm -f -- ${temporary}`).catch(() => undefined);
        throw fileError(result.output, `Cannot write ${target}`);
      }
    }
  }

  async stat(target: string): Promise<FileStat | null> {
    const result = await this.run(`stat -L -c '%F|%s|%Y' -- ${shellQuote(this.resolve(target))} 2>/dev/null`);
    if (result.exitCode !== 0) return null;
    const [kind = '', size = '0', modified = '0'] = result.output.trim().split('|');
    const type = kind.includes('regular') ? 'file' : kind === 'directory' ? 'directory' : 'other';
    return { type, size: Number(size) || 0, modifiedMs: (Number(modified) || 0) * 1000 };
  }

  async realpath(target: string): Promise<string> {
    const absolute = this.resolve(target);
    const result = await this.run(`set -- ${shellQuote(absolute)}\n${REAL_PATH_SCRIPT}`);
    if (result.exitCode !== 0) throw fileError(result.output, `Cannot resolve ${target}`);
    return parseRealPathOutput(result.output, absolute);
  }

  async realpaths(targets: readonly string[]): Promise<(string | undefined)[]> {
    const absolute = targets.map((target) => this.resolve(target));
    const result = await this.run(`set -- ${absolute.map(shellQuote).join(' ')}\n${REAL_PATHS_SCRIPT}`).catch(() => undefined);
    return result?.exitCode === 0 ? parseRealPathsOutput(result.output, absolute) : absolute.map(() => undefined);
  }

  /** Regular files under `root` in the order a depth-first walk with sorted entries meets them (see find-walk.ts). */
  async *walk(root: string, options: WalkOptions): AsyncIterable<string> {
    const start = this.resolve(root);
    const info = await this.stat(start);
    if (info?.type === 'file') {
      yield start;
      return;
    }
    if (info?.type !== 'directory') return;
    const result = await this.run(findWalkCommand(start, options), findWalkOutputBytes(options));
    for (const file of filesOfFindWalk(result.output, options)) yield file;
  }

  /** `maxOutputChars` bounds what the worker keeps as the output streams; the commands cut their own output first. */
  private run(command: string, maxOutputChars = MAX_OUTPUT_CHARS): Promise<ExecResult> {
    return this.exec({ command, cwd: '/', timeoutMs: FILE_TIMEOUT_MS, maxOutputChars });
  }
}
const ERROR_CODES: [RegExp, string][] = [
  [/^ENOENT|No such file or directory/m, 'ENOENT'],
  [/^EISDIR|Is a directory/m, 'EISDIR'],
  [/^EACCES|Permission denied/m, 'EACCES'],
  [/^EINVAL/m, 'EINVAL'],
  [/Not a directory/, 'ENOTDIR'],
  [/Read-only file system/, 'EROFS'],
  [/No space left on device/, 'ENOSPC'],
  [/File exists/, 'EEXIST'],
];

/** An Error with the errno-style `code` that file tools turn into a short reason. */
function fileError(output: string, fallback: string): Error {
  const code = ERROR_CODES.find(([pattern]) => pattern.test(output))?.[1];
  const error = new Error(output.trim() || fallback) as Error & { code?: string };
  if (code) error.code = code;
  return error;
}
