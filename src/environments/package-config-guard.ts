// A workspace's .npmrc, .yarnrc and .yarnrc.yml, in its top folder or any subfolder (a package
// of a monorepo), are read by the next npm, npx, pnpm or yarn the user runs there, outside any
// sandbox: `npx hermes-temporal run` included. Some of their keys make those tools run a program
// or load code (node-options, script-shell, yarnPath, plugins, pnpmfile, ...) or fetch packages
// from elsewhere (registry); a pnpm hook file (.pnpmfile.cjs) or bun's bunfig.toml (preload) is
// code run by the tool itself. The user's own top-level configs are hidden from commands (they may
// hold tokens) and so stay unchanged; any other state of them (created, replaced, edited by a
// command, a background process or a tool since the session started) loses those keys, and a
// code file in that state is set aside, renamed, so the tool no longer finds it.
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, readSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { removeBeneath, withinFolderBeneath } from './folder-beneath';

/** The configs hidden from commands in the workspace's top folder. */
export const PACKAGE_CONFIG_FILES = ['.npmrc', '.yarnrc', '.yarnrc.yml'] as const;
/** Files the package tools run as code: disarmed by setting them aside whole. */
const PACKAGE_CODE_FILES = ['.pnpmfile.cjs', '.pnpmfile.mjs', 'bunfig.toml', '.bunfig.toml'] as const;
const GUARDED_NAMES: ReadonlySet<string> = new Set([...PACKAGE_CONFIG_FILES, ...PACKAGE_CODE_FILES]);
/** What a disarmed code file is renamed to (beside it). */
const SET_ASIDE_SUFFIX = '.hermes-disarmed';
/** Folders no package tool reads its config from: installed packages, git's own. */
const NOT_SEARCHED = new Set(['.git', 'node_modules']);
/** How many folder entries a look through the workspace's subfolders reads at most: at the start (on the first command's way), and after. */
const START_WALK_BUDGET = 2_000;
const WALK_BUDGET = 20_000;

/** npm's (and yarn 1's) keys that name a program, code to load, another config or where packages come from. */
const NPM_RUNNING_KEYS =
  /^(node-options|script-shell|shell|onload-script|git|editor|browser|viewer|prefix|globalconfig|userconfig|init-module|init\.module|node-gyp|python|yarn-path|yarnpath|registry|.*:registry|replace-registry-host|cafile|ca|pnpmfile|global-pnpmfile|store-dir|global-dir|global-bin-dir)$/i;
/** yarn 2+'s keys of that kind. */
const YARN_RUNNING_KEYS = /^(yarnPath|plugins|injectEnvironmentFiles|npmRegistryServer|npmPublishRegistry|npmScopes|unsafeHttpWhitelist|httpsCaFilePath)$/;
/** Larger than any real config: such a file is removed rather than read. */
const MAX_CONFIG_BYTES = 1024 * 1024;
/** How far a file's change time may lag the clock the baseline was taken by. */
const FILE_CLOCK_MARGIN_MS = 2000;
/** In the session's (worker-side) state folder: the workspace and its files as the session found them. */
export const BASELINE_FILE = 'package-config-baseline.json';

export interface PackageConfigBaseline {
  workspace: string;
  /** Per path relative to the workspace: its identity when the session started (inode and change time), or null when absent. */
  files: Record<string, string | null>;
  /** When it was taken (ms since the epoch): a guarded file in a subfolder not listed and not changed since is the user's. */
  since?: number;
}

/** Records the workspace's package configs as the session finds them, once per session. */
export function recordPackageConfigBaseline(stateDir: string, workspace: string): void {
  const file = path.join(stateDir, BASELINE_FILE);
  if (readPackageConfigBaseline(stateDir)) return;
  mkdirSync(stateDir, { recursive: true });
  writeFileSync(file, JSON.stringify(packageConfigBaseline(workspace)));
}

/** The folder's package configs as they are now: its top folder's, and those its subfolders hold. */
export function packageConfigBaseline(workspace: string): PackageConfigBaseline {
  const top = [...GUARDED_NAMES].map((name) => [name, identityOf(path.join(workspace, name))] as const);
  const nested = guardedFilesBelow(workspace, START_WALK_BUDGET).map((relative) => [relative, identityOf(path.join(workspace, relative))] as const);
  return { workspace, files: Object.fromEntries([...top, ...nested]), since: Date.now() };
}

export function readPackageConfigBaseline(stateDir: string): PackageConfigBaseline | undefined {
  try {
    return JSON.parse(readFileSync(path.join(stateDir, BASELINE_FILE), 'utf8')) as PackageConfigBaseline;
  } catch {
    return undefined;
  }
}

/**
 * Takes out of each package config that is no longer the one the session found the keys that run
 * programs or load code, and sets aside such a code file. The top folder's and those the session
 * found are checked each time (a few system calls); `everywhere` also looks through every
 * subfolder for new ones (bounded; at a session's end, after an MCP server's call). Returns what
 * went, for the command's output.
 */
export function disarmPackageConfigs(baseline: PackageConfigBaseline | undefined, options: { everywhere?: boolean; written?: readonly string[] } = {}): string[] {
  if (!baseline) return [];
  const removed: string[] = [];
  const known = Object.keys(baseline.files).filter((relative) => GUARDED_NAMES.has(path.basename(relative)));
  // A file a tool just wrote (from the worker) is checked wherever it lies.
  const written = (options.written ?? [])
    .map((file) => path.relative(baseline.workspace, file))
    .filter((relative) => relative && !relative.startsWith('..') && !path.isAbsolute(relative) && GUARDED_NAMES.has(path.basename(relative)) && !(relative in baseline.files));
  for (const relative of [...known, ...new Set(written)]) {
    const identity = identityOf(path.join(baseline.workspace, relative));
    if (identity === null || identity === (baseline.files[relative] ?? null)) continue;
    removed.push(...disarmFile(baseline.workspace, relative));
  }
  if (options.everywhere && baseline.since !== undefined) {
    const since = baseline.since;
    const listed = new Set(known);
    for (const relative of guardedFilesBelow(baseline.workspace)) {
      // One the first look did not list is new, unless it has not changed since (the user's, beyond that look's reach).
      if (listed.has(relative) || !changedSince(path.join(baseline.workspace, relative), since)) continue;
      removed.push(...disarmFile(baseline.workspace, relative));
    }
  }
  return removed;
}

function disarmFile(workspace: string, relative: string): string[] {
  // Named through folders that are no links: a folder swapped for one leads nowhere, not to ~/.npmrc.
  return withinFolderBeneath(workspace, path.join(workspace, relative), (file) => disarmNamed(file, relative)) ?? [];
}

function disarmNamed(file: string, relative: string): string[] {
  const name = path.basename(relative);
  const info = lstatSync(file, { throwIfNoEntry: false });
  if (!info || info.isDirectory()) return [];
  if ((PACKAGE_CODE_FILES as readonly string[]).includes(name)) {
    // Kept for the user to read, where no tool looks for it. What a command left under that name
    // (a folder, with a link swapped into it meanwhile) goes without following a link; if it
    // cannot go, the code file goes whole.
    if (!removeBeneath(path.dirname(file), `${name}${SET_ASIDE_SUFFIX}`)) {
      rmSync(file, { force: true });
      return [relative];
    }
    renameSync(file, `${file}${SET_ASIDE_SUFFIX}`);
    return [`${relative} (set aside as ${name}${SET_ASIDE_SUFFIX})`];
  }
  // Never rewritten through a link, and never read when huge: such a file goes whole.
  if (!info.isFile() || info.size > MAX_CONFIG_BYTES) {
    rmSync(file, { force: true });
    return [relative];
  }
  // Swapped for a link since the look: not read (the link could lead to the user's own ~/.npmrc).
  const text = readPlainFile(file);
  if (text === undefined) return [];
  const { kept, keys } = name === '.yarnrc.yml' ? withoutYamlKeys(text) : withoutIniKeys(text);
  if (!keys.length) return [];
  // A new file renamed over it: a hard link elsewhere keeps its content, nothing is written through.
  const temporary = `${file}.hermes-${process.pid}.tmp`;
  // 'wx': a link planted under the temporary name is not written through either.
  rmSync(temporary, { force: true });
  writeFileSync(temporary, kept, { mode: info.mode & 0o777, flag: 'wx' });
  renameSync(temporary, file);
  return keys.map((key) => `${relative} ${key}`);
}

/** The file's text if it is a plain file of at most MAX_CONFIG_BYTES, opened without following a link. */
function readPlainFile(file: string): string | undefined {
  let descriptor: number;
  try {
    descriptor = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    if (!fstatSync(descriptor).isFile()) return undefined;
    // One byte more than the limit tells a file that grew past it since it was looked at.
    const buffer = Buffer.alloc(MAX_CONFIG_BYTES + 1);
    const length = readSync(descriptor, buffer, 0, buffer.length, 0);
    return length <= MAX_CONFIG_BYTES ? buffer.toString('utf8', 0, length) : undefined;
  } finally {
    closeSync(descriptor);
  }
}

/** The guarded files in the workspace's subfolders (relative paths), in a bounded look that skips installed packages. */
function guardedFilesBelow(workspace: string, budget = WALK_BUDGET): string[] {
  const found: string[] = [];
  let queue = [''];
  let read = 0;
  while (queue.length && read < budget) {
    const next: string[] = [];
    for (const relative of queue) {
      let entries;
      try {
        entries = readdirSync(path.join(workspace, relative), { withFileTypes: true });
      } catch {
        continue;
      }
      read += entries.length + 1;
      for (const entry of entries) {
        const child = relative ? `${relative}/${entry.name}` : entry.name;
        if (relative && GUARDED_NAMES.has(entry.name)) found.push(child);
        else if (entry.isDirectory() && !NOT_SEARCHED.has(entry.name)) next.push(child);
      }
      if (read >= budget) break;
    }
    queue = next;
  }
  return found;
}

/** `baseline` with the top folder's hidden configs that existed then as they are now: only their owner can change them. */
export function followingHiddenConfigs(baseline: PackageConfigBaseline): PackageConfigBaseline {
  const files = { ...baseline.files };
  for (const name of PACKAGE_CONFIG_FILES) if (files[name] !== null) files[name] = identityOf(path.join(baseline.workspace, name));
  return { ...baseline, files };
}

/** Whether the file was created, replaced or written at or after `since` (its change time, which no command can set). */
function changedSince(file: string, since: number): boolean {
  const info = lstatSync(file, { throwIfNoEntry: false });
  // The kernel stamps files from a coarse clock that can lag Date.now() by a tick or more: a file
  // written just after the first look may carry an earlier time. Counting a little before it only
  // disarms more.
  return info !== undefined && info.ctimeMs >= since - FILE_CLOCK_MARGIN_MS;
}

/** `.npmrc` (`key = value`) and yarn 1's `.yarnrc` (`key value`, `--flag value`). */
export function withoutIniKeys(text: string): { kept: string; keys: string[] } {
  const keys: string[] = [];
  const lines = text.split('\n').filter((line) => {
    const trimmed = line.trim();
    if (!trimmed || trimmed.startsWith('#') || trimmed.startsWith(';')) return true;
    const key = unquote((/^("[^"]*"|'[^']*'|[^\s=]+)/.exec(trimmed)?.[1] ?? '').replace(/\[\]$/, ''));
    if (!NPM_RUNNING_KEYS.test(key) && !key.startsWith('--')) return true;
    keys.push(key);
    return false;
  });
  return { kept: lines.join('\n'), keys };
}

/** yarn 2+'s `.yarnrc.yml`: a top-level key goes with the indented or listed lines under it. */
export function withoutYamlKeys(text: string): { kept: string; keys: string[] } {
  const keys: string[] = [];
  const kept: string[] = [];
  let skipping = false;
  for (const line of text.split('\n')) {
    const topLevel = /^("[^"]*"|'[^']*'|[^\s:#-][^:]*?)\s*:/.exec(line);
    if (topLevel) {
      const key = unquote(topLevel[1] ?? '');
      skipping = YARN_RUNNING_KEYS.test(key);
      if (skipping) keys.push(key);
    } else if (skipping && !/^(\s|-|$)/.test(line)) {
      skipping = false;
    }
    // Blank lines stay (they end no block): the file keeps its shape.
    if (!skipping || !line.trim()) kept.push(line);
  }
  return { kept: kept.join('\n'), keys };
}

function unquote(word: string): string {
  return /^(["']).*\1$/.test(word) ? word.slice(1, -1) : word;
}

/** What changes whenever the file is created, replaced or written: its inode and change time (which no command can set). */
function identityOf(file: string): string | null {
  const info = lstatSync(file, { throwIfNoEntry: false, bigint: true });
  return info ? `${info.ino}:${info.ctimeNs}` : null;
}
