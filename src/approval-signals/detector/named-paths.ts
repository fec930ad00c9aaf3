// The paths a text names, which the rules judge by their text: the files it writes and the files
// its programs are given to read. Outside a container a name can lead elsewhere through a link
// already on disk (`notes -> ~/.bashrc`, checked out from a repository or made by an earlier
// call), so the gate looks where each leads and judges the real path the same way
// (approval-signals/linked-paths.ts). Pure.
import type { Analysis, ShellWord, WriteTarget } from './analysis-types';
import { isSecretReadPath, runtimeHomesOf } from './path-classes';
import { displayPath, resolvePath } from './paths';
import type { RuleHit } from './rule-catalog';
import { args, canonicalCommand } from './rules/rule-helpers';
import type { RuleContext } from './rules/rule-types';
import { candidates, METADATA_ONLY } from './rules/secrets';
import { writeHitsAt, writeTargetsOf } from './rules/writes';

export type NamedPath =
  | { access: 'write'; path: string; write: WriteTarget }
  /** `program`: the reading program, null for a `<` redirection. */
  | { access: 'read'; path: string; command: string; reader: string; program: string | null };

/** Folders whose links are the kernel's, named by their names: judged as named. */
const SYSTEM_LINK_FOLDERS = /^\/(?:dev|proc|sys)(?:\/|$)/;
/** Longer words are prose or data, not paths. */
const MAX_PATH_LENGTH = 1024;

/**
 * Each literal path the text writes or gives a program to read, once per access (writes first);
 * with `eachCommand`, once per access and command (whether a path may be a link made in the same
 * text depends on which command reaches it: links-made-in-text.ts).
 */
export function namedPaths(analysis: Analysis, context: RuleContext, eachCommand = false): NamedPath[] {
  const found = new Map<string, NamedPath>();
  const add = (named: NamedPath) => {
    const key = `${named.access} ${named.path}${eachCommand ? ` ${named.access === 'write' ? named.write.command : named.command}` : ''}`;
    if (!found.has(key)) found.set(key, named);
  };
  for (const write of writeTargetsOf(analysis)) {
    const path = literalPath(write.target.value, write.target.literal, write.cwd, context);
    if (path !== undefined) add({ access: 'write', path, write });
  }
  for (const read of analysis.reads) {
    const path = literalPath(read.target.value, read.target.literal, read.cwd, context);
    if (path !== undefined) add({ access: 'read', path, command: read.command, reader: '<', program: null });
  }
  for (const command of analysis.commands) {
    if (command.program === null || command.host || METADATA_ONLY.has(command.program)) continue;
    for (const word of args(command)) {
      if (!word.literal || (word.value.startsWith('-') && !word.value.includes('='))) continue;
      for (const text of candidates(word.value)) {
        const path = literalPath(text, true, command.cwd, context);
        if (path !== undefined) add({ access: 'read', path, command: command.text, reader: canonicalCommand(command, [command.program]), program: command.program });
      }
    }
  }
  // What a command writes is judged as written, also when it reads it first (`tee -a`, `sed -i`).
  return [...found.values()].filter((named) => named.access === 'write' || !found.has(`write ${named.path}${eachCommand ? ` ${named.command}` : ''}`));
}

/** An access whose path is only known at run time (a variable, a glob, under a folder a dynamic `cd` left): no lookup follows it. */
export interface UnplacedPath {
  access: 'write' | 'read';
  /** The word as written. */
  shown: string;
  command: string;
  /** The writing or reading program, as in approval keys (`>>`, `cat`, `<`). */
  accessor: string;
  /** The reading program, null for a write or a `<` redirection. */
  program: string | null;
}

/** Each access `namedPaths` cannot name because its path is only known at run time (judged where the text may make links). */
export function unplacedPaths(analysis: Analysis, context: RuleContext): UnplacedPath[] {
  const found: UnplacedPath[] = [];
  for (const write of writeTargetsOf(analysis)) {
    if (isUnplaced(write.target, write.cwd, context)) found.push({ access: 'write', shown: write.target.raw, command: write.command, accessor: write.program, program: null });
  }
  for (const read of analysis.reads) {
    if (isUnplaced(read.target, read.cwd, context)) found.push({ access: 'read', shown: read.target.raw, command: read.command, accessor: '<', program: null });
  }
  for (const command of analysis.commands) {
    if (command.program === null || command.host || METADATA_ONLY.has(command.program)) continue;
    for (const word of args(command)) {
      if (word.value.startsWith('-') || !isUnplaced(word, command.cwd, context)) continue;
      found.push({ access: 'read', shown: word.raw, command: command.text, accessor: canonicalCommand(command, [command.program]), program: command.program });
    }
  }
  return found;
}

/** Whether a word that may name a path cannot be looked up: a variable or substitution in it, a glob, or a relative path under an unknown folder. */
function isUnplaced(word: ShellWord, cwd: string | null, context: RuleContext): boolean {
  const text = word.value;
  if (text === '' || text.length > MAX_PATH_LENGTH || /[\n\0]/.test(text) || /^[a-z][\w+.-]*:\/\//i.test(text)) return false;
  if (word.literal && !word.glob && literalPath(text, true, cwd, context) !== undefined) return false;
  const known = resolvePath(word, cwd, context.home).path;
  // `/dev/$FD`, `/proc/$PID/...`: the kernel's, judged by name.
  return known === null || !SYSTEM_LINK_FOLDERS.test(known);
}

/** What reading or writing `real`, where `named.path` leads, would match. */
export function hitsThroughLink(named: NamedPath, real: string, context: RuleContext, movedFrom?: string): RuleHit[] {
  const via = movedFrom === undefined ? '' : ` (as ${displayPath(movedFrom, context.home)}, which the text moves or copies there, does)`;
  const detail = `through a link: ${displayPath(named.path, context.home)} leads to ${displayPath(real, context.home)}${via}`;
  if (named.access === 'write') return writeHitsAt(named.write, real, context).map((hit) => ({ ...hit, detail }));
  if (!isSecretReadPath(real, context.home, runtimeHomesOf(context.protectedFiles, context.home))) return [];
  return [{ id: 'N19', canonical: `${named.reader} ${displayPath(real, context.home)}`, command: named.command, detail }];
}

function literalPath(text: string, literal: boolean, cwd: string | null, context: RuleContext): string | undefined {
  if (!literal || text === '' || text.length > MAX_PATH_LENGTH || /[\n\0*?[]/.test(text) || /^[a-z][\w+.-]*:\/\//i.test(text)) return undefined;
  const path = resolvePath(text, cwd, context.home).path ?? undefined;
  // The system's own links (`/dev/stdout`, `/proc/self`) lead to the worker's descriptors, and no command makes links there.
  return path === undefined || SYSTEM_LINK_FOLDERS.test(path) ? undefined : path;
}
