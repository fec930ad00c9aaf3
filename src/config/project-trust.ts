// A project's hermes-temporal.yaml lies where sessions write: a script of the agent's own, run in
// a sandbox, can create it; a container or remote backend may mount that folder too. A file there
// could turn approvals off for the next run, so it is used only as a person last trusted it
// (`hermes-temporal trust`, like `direnv allow`): its digest is kept in the home folder, which no
// session can read or write.
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, mkdirSync, openSync, readFileSync, readlinkSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const TRUST_FILE = 'trusted-projects.json';

export type ProjectTrust = 'trusted' | 'new' | 'changed';

/** Where the digests of trusted project files are kept. */
export function trustRecordFile(home: string): string {
  return path.join(home, TRUST_FILE);
}

export function digestOf(content: string | Buffer): string {
  return `sha256:${createHash('sha256').update(content).digest('hex')}`;
}

/**
 * A project file as read once for trusting or for use: the bytes hashed are the bytes parsed, and
 * `key` names the real folder they were read from (a file never borrows another folder's trust).
 */
export interface ProjectFile {
  content: string;
  key: string;
}

/** Why a project file is not read at all: a link, or a folder reached through one. */
export class ProjectFileRefused extends Error {
  override readonly name = 'ProjectFileRefused';
}

/**
 * Reads `file` from a descriptor opened without following a final symbolic link; undefined when
 * there is none. A link (say, to a folder's trusted file that turns approvals off) is refused, as
 * is a folder named through a link: trust belongs to the folder sessions really work in.
 */
export function readProjectFile(file: string): ProjectFile | undefined {
  const named = path.resolve(file);
  let descriptor: number;
  try {
    // Non-blocking, so a FIFO put in its place cannot hang the CLI; it is refused below.
    descriptor = openSync(named, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw new ProjectFileRefused(`${named} is a symbolic link; a project file is used only as a plain file in its own folder (replace the link with the file itself, then trust it)`);
    throw error;
  }
  try {
    if (!fstatSync(descriptor).isFile()) throw new ProjectFileRefused(`${named} is not a regular file`);
    const real = realPathOf(descriptor, named);
    if (path.dirname(real) !== path.dirname(named)) {
      throw new ProjectFileRefused(
        `${named} is reached through a symbolic link (its folder is really ${path.dirname(real)}); run in ${path.dirname(real)} itself, so its trust is not borrowed by another folder`,
      );
    }
    return { content: readFileSync(descriptor, 'utf8'), key: real };
  } finally {
    closeSync(descriptor);
  }
}

/** Whether `file` as read now is what was last trusted in its folder. */
export function projectTrust(home: string, file: ProjectFile): ProjectTrust {
  const trusted = readRecord(home)[file.key];
  if (trusted === undefined) return 'new';
  return trusted === digestOf(file.content) ? 'trusted' : 'changed';
}

/** Trusts `file` as it is now: later changes need trusting again. */
export function trustProjectFile(home: string, file: ProjectFile): void {
  const record = { ...readRecord(home), [file.key]: digestOf(file.content) };
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const target = trustRecordFile(home);
  const temporary = `${target}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, target);
}

function readRecord(home: string): Record<string, string> {
  let text: string;
  try {
    text = readFileSync(trustRecordFile(home), 'utf8');
  } catch {
    return {};
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
      return Object.fromEntries(Object.entries(parsed).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
    }
  } catch {
    // A damaged record trusts nothing; `trust` writes a good one again.
  }
  return {};
}

/** The opened file's own path (Linux names it under /proc), else its real folder and its name. */
function realPathOf(descriptor: number, named: string): string {
  try {
    return readlinkSync(`/proc/self/fd/${descriptor}`);
  } catch {
    return path.join(realpathSync(path.dirname(named)), path.basename(named));
  }
}
