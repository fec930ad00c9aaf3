// What a sandboxed local command may read, as one rule that the sandbox's mounts and the file-tool
// gate share: the system and the user's tools, the workspace, and no one's data. Data folders
// (each top-level folder that is not the system's, /home, every home, web and mail roots) are
// hidden, except the homes' dot-entries (tool installs and settings; their secrets are hidden on
// top, by HIDDEN_HOME_ENTRIES), the folders on PATH with their install prefixes, the workspace
// and the folders the user adds (`terminal.local.read_paths`). Paths here are real (links followed).
import { existsSync, lstatSync, readdirSync, readlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isWithin, realOrSelf } from './path-within';

/** Top-level folders of the system and its package managers: shown (their own secrets are hidden elsewhere). */
const SYSTEM_ROOTS = new Set(['bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32', 'usr', 'etc', 'opt', 'var', 'nix', 'gnu', 'snap', 'boot', 'proc', 'dev', 'sys', 'run', 'tmp']);
/** Data that lives under a system root. */
const DATA_UNDER_SYSTEM = ['/var/www', '/var/mail', '/var/spool/mail', '/var/backups'];

export interface ReadScope {
  /** Hidden folders (an empty tmpfs in the sandbox), none inside another: what they hold shows only when kept below. */
  dataRoots: string[];
  /** Homes whose dot-entries are shown. */
  homes: string[];
  /** Folders shown whole wherever they lie: the workspace, PATH folders and prefixes, configured ones. */
  shown: string[];
}

export interface ReadScopeInput {
  workspace: string;
  /** The PATH commands get: its folders are the user's tools. */
  searchPath?: string;
  /** More folders to show (`~/` is the home folder). */
  readPaths?: readonly string[];
  /** Defaults to $HOME, os.homedir() and the passwd home (an embedder may change $HOME). */
  homes?: readonly string[];
  /** The file system's root, for tests. */
  root?: string;
}

/** The scope on this machine now (a listing of `/` and a few realpath calls). */
export function readScope(input: ReadScopeInput): ReadScope {
  const homes = unique((input.homes ?? defaultHomes()).map(realOrSelf).filter((home) => home !== '/'));
  const root = input.root ?? '/';
  const topLevel = listDirectories(root).filter((name) => !SYSTEM_ROOTS.has(name)).map((name) => path.join(root, name));
  const candidates = [...topLevel, ...['/home', ...DATA_UNDER_SYSTEM].map((folder) => path.join(root, folder)).filter(existsSync).map(realOrSelf), ...homes];
  const home = homes[0] ?? os.homedir();
  const configured = (input.readPaths ?? []).map((entry) => (entry.startsWith('~/') ? path.join(home, entry.slice(2)) : entry));
  const shown = outermost([input.workspace, ...pathFolders(input.searchPath ?? '', homes, root), ...configured].map(realOrSelf).filter((folder) => folder !== '/' || input.workspace === '/'));
  // A data root inside a shown folder is shown with it.
  const dataRoots = outermost(candidates).filter((folder) => !shown.some((kept) => isWithin(folder, kept)));
  return { dataRoots, homes, shown };
}

/** How long a computed scope stands: the sandbox builds every command's mounts from it, the gate judges file-tool reads by it. */
const SCOPE_TTL_MS = 2000;
const SCOPES_KEPT = 16;
const recentScopes = new Map<string, { at: number; scope: ReadScope }>();

/** `readScope`, computed at most once per `SCOPE_TTL_MS` for the same input (commands and file tools of a turn share it). */
export function recentReadScope(input: ReadScopeInput): ReadScope {
  const key = JSON.stringify([input.workspace, input.searchPath ?? '', input.readPaths ?? [], input.homes ?? defaultHomes(), input.root ?? '/']);
  const known = recentScopes.get(key);
  if (known && Date.now() - known.at < SCOPE_TTL_MS) return known.scope;
  const scope = readScope(input);
  recentScopes.delete(key);
  recentScopes.set(key, { at: Date.now(), scope });
  if (recentScopes.size > SCOPES_KEPT) recentScopes.delete(recentScopes.keys().next().value!);
  return scope;
}

/** Whether a sandboxed command sees `target` (real): not inside a data root, or kept there. */
export function isShownInSandbox(target: string, scope: ReadScope): boolean {
  if (scope.shown.some((kept) => isWithin(target, kept))) return true;
  if (!scope.dataRoots.some((hidden) => isWithin(target, hidden))) return true;
  return scope.homes.some((home) => target !== home && isWithin(target, home) && path.relative(home, target).startsWith('.'));
}

/** Whether walking `folder` (real) would reach something the sandbox hides: it is hidden, or holds a data root. */
export function reachesHiddenData(folder: string, scope: ReadScope): boolean {
  if (!isShownInSandbox(folder, scope)) return true;
  if (scope.shown.some((kept) => isWithin(folder, kept))) return false;
  return scope.dataRoots.some((hidden) => isWithin(hidden, folder)) || scope.homes.some((home) => isWithin(home, folder));
}

/** How the sandbox applies a scope; see readScopeMounts. */
export interface ReadScopeMountOptions {
  /** Home entries not to bind back (secrets: absent, rather than bound and then hidden), listed in `absent`. */
  skipHomeEntries?: ReadonlySet<string>;
  /** Paths the caller mounts itself (the workspace, its files): their data root gets mount points. */
  mountedElsewhere?: readonly string[];
  /** An empty read-only folder: bound over a data root nothing shows in (one mount instead of two). */
  emptyFolder?: string;
}

/**
 * The bwrap arguments that apply the scope, in two parts: `hide` before the caller's own binds
 * (each data root emptied, then what shows there bound back read-only), `seal` after them (the
 * emptied roots made read-only: bwrap makes mount points in them until then). A data root with
 * nothing in it is left alone: there is nothing to hide.
 */
export function readScopeMounts(scope: ReadScope, options: ReadScopeMountOptions = {}): { hide: string[]; seal: string[]; absent: string[] } {
  const binds: { target: string; args: string[] }[] = [];
  const absent: string[] = [];
  const insideDataRoot = (target: string) => scope.dataRoots.some((folder) => isWithin(target, folder));
  const dotEntryOfHome = (target: string) => scope.homes.some((home) => target !== home && isWithin(target, home) && path.relative(home, target).startsWith('.'));
  for (const home of scope.homes) {
    if (!insideDataRoot(home) || scope.shown.some((kept) => isWithin(home, kept))) continue;
    // The home itself is there, even when nothing of it shows: `cd ~` and tools that stat it work.
    binds.push({ target: home, args: ['--dir', home] });
    for (const name of listEntries(home)) {
      if (!name.startsWith('.')) continue;
      const entry = path.join(home, name);
      if (options.skipHomeEntries?.has(name)) {
        absent.push(entry);
        continue;
      }
      // A link stays a link: where it leads is judged by the scope like any path.
      const link = linkTarget(entry);
      binds.push({ target: entry, args: link !== undefined ? ['--symlink', link, entry] : ['--ro-bind', entry, entry] });
    }
  }
  for (const folder of scope.shown) {
    if (!insideDataRoot(folder) || dotEntryOfHome(folder) || options.mountedElsewhere?.includes(folder) || !existsSync(folder)) continue;
    binds.push({ target: folder, args: ['--ro-bind', folder, folder] });
  }
  const hide: string[] = [];
  const seal: string[] = [];
  const targets = [...binds.map((bind) => bind.target), ...(options.mountedElsewhere ?? [])];
  for (const folder of scope.dataRoots) {
    if (listEntries(folder).length === 0) continue;
    if (options.emptyFolder && !targets.some((target) => isWithin(target, folder))) {
      hide.push('--ro-bind', options.emptyFolder, folder);
      continue;
    }
    hide.push('--tmpfs', folder);
    seal.push('--remount-ro', folder);
  }
  hide.push(...binds.flatMap((bind) => bind.args));
  return { hide, seal, absent };
}

/**
 * The folders of a search path and the install prefix of each `bin` among them (`~/go/bin` needs
 * `~/go`, a venv's `bin` its venv), except a prefix that is a home or the root: `~/bin` shows no more.
 */
export function pathFolders(searchPath: string, homes: readonly string[] = defaultHomes(), root = '/'): string[] {
  const folders: string[] = [];
  for (const entry of searchPath.split(':')) {
    if (!path.isAbsolute(entry) || !existsSync(entry)) continue;
    const real = realOrSelf(entry);
    folders.push(real);
    const prefix = path.dirname(real);
    // Never a top-level folder, a home or another user's (`/home/x/bin` shows `/home/x/bin` only).
    const tooWide = path.dirname(prefix) === prefix || path.dirname(prefix) === '/' || path.dirname(prefix) === realOrSelf(path.join(root, 'home')) || homes.map(realOrSelf).includes(prefix);
    if (/^s?bin$/.test(path.basename(real)) && !tooWide) folders.push(prefix);
  }
  return unique(folders);
}

/**
 * What a program the user configured (an MCP server's command and arguments) needs to read: the
 * folder of each absolute path it names (with its install prefix, as on PATH) and, for Node's
 * lookup, every `node_modules` beside the folders above it.
 */
export function programFolders(words: readonly string[], homes: readonly string[] = defaultHomes()): string[] {
  const folders: string[] = [];
  for (const word of words) {
    if (!path.isAbsolute(word) || !existsSync(word)) continue;
    const real = realOrSelf(word);
    const folder = lstatSync(real).isDirectory() ? real : path.dirname(real);
    folders.push(...pathFolders(folder, homes));
    for (let parent = folder; path.dirname(parent) !== parent; parent = path.dirname(parent)) {
      const modules = path.join(parent, 'node_modules');
      if (existsSync(modules)) folders.push(realOrSelf(modules));
    }
  }
  return unique(folders);
}

function defaultHomes(): string[] {
  let passwdHome: string | undefined;
  try {
    passwdHome = os.userInfo().homedir;
  } catch {
    // No passwd entry (a container's arbitrary uid).
  }
  return unique([process.env.HOME, os.homedir(), passwdHome].filter((home): home is string => Boolean(home)));
}

/** Real folders directly in `folder` (links left out: they lead somewhere the scope judges). */
function listDirectories(folder: string): string[] {
  return listEntries(folder).filter((name) => {
    try {
      return lstatSync(path.join(folder, name)).isDirectory();
    } catch {
      return false;
    }
  });
}

function listEntries(folder: string): string[] {
  try {
    return readdirSync(folder);
  } catch {
    return [];
  }
}

function linkTarget(entry: string): string | undefined {
  try {
    return lstatSync(entry).isSymbolicLink() ? readlinkSync(entry) : undefined;
  } catch {
    return undefined;
  }
}

/** Without duplicates and without folders inside another of the list. */
function outermost(folders: readonly string[]): string[] {
  const sorted = unique(folders).sort((a, b) => a.length - b.length);
  const kept: string[] = [];
  for (const folder of sorted) if (!kept.some((parent) => isWithin(folder, parent))) kept.push(folder);
  return kept;
}

function unique<T>(items: readonly T[]): T[] {
  return [...new Set(items)];
}
