// A project's hermes-temporal.yaml lies where sessions write: a script of the agent's own, run in
// a sandbox, can create it; a container or remote backend may mount that folder too. A file there
// could turn approvals off for the next run, so it is used only as a person last trusted it
// (`hermes-temporal trust`, like `direnv allow`): its digest is kept in the home folder, which no
// session can read or write.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
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

/** Whether `content` is what `file` held when it was last trusted. */
export function projectTrust(home: string, file: string, content: string | Buffer): ProjectTrust {
  const trusted = readRecord(home)[canonical(file)];
  if (trusted === undefined) return 'new';
  return trusted === digestOf(content) ? 'trusted' : 'changed';
}

/** Trusts `file` as it is now: later changes need trusting again. */
export function trustProjectFile(home: string, file: string, content: string | Buffer): void {
  const record = { ...readRecord(home), [canonical(file)]: digestOf(content) };
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

/** One name per file: a symlinked folder must not make a trusted file look new, or the reverse. */
function canonical(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return path.resolve(file);
  }
}
