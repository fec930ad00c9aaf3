// A workspace's .npmrc, .yarnrc and .yarnrc.yml are read by the next npm, npx or yarn the user
// runs there, outside any sandbox: `npx hermes-temporal run` included. Some of their keys make
// those tools run a program or load code (node-options, script-shell, yarnPath, ...) or fetch
// packages from elsewhere (registry). The user's own files are hidden from commands (they may
// hold tokens) and so stay unchanged; any other state of them (created, replaced, edited by a
// command, a background process or a tool since the session started) loses those keys.
import { lstatSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const PACKAGE_CONFIG_FILES = ['.npmrc', '.yarnrc', '.yarnrc.yml'] as const;

/** npm's (and yarn 1's) keys that name a program, code to load, another config or where packages come from. */
const NPM_RUNNING_KEYS =
  /^(node-options|script-shell|shell|onload-script|git|editor|browser|viewer|prefix|globalconfig|userconfig|init-module|init\.module|node-gyp|python|yarn-path|yarnpath|registry|.*:registry|replace-registry-host|cafile|ca)$/i;
/** yarn 2+'s keys of that kind. */
const YARN_RUNNING_KEYS = /^(yarnPath|plugins|injectEnvironmentFiles|npmRegistryServer|npmPublishRegistry|npmScopes|unsafeHttpWhitelist|httpsCaFilePath)$/;
/** Larger than any real config: such a file is removed rather than read. */
const MAX_CONFIG_BYTES = 1024 * 1024;
/** In the session's (worker-side) state folder: the workspace and its files as the session found them. */
export const BASELINE_FILE = 'package-config-baseline.json';

export interface PackageConfigBaseline {
  workspace: string;
  /** Per file name: its identity when the session started (inode and change time), or null when absent. */
  files: Record<string, string | null>;
}

/** Records the workspace's package configs as the session finds them, once per session. */
export function recordPackageConfigBaseline(stateDir: string, workspace: string): void {
  const file = path.join(stateDir, BASELINE_FILE);
  if (readPackageConfigBaseline(stateDir)) return;
  mkdirSync(stateDir, { recursive: true });
  writeFileSync(file, JSON.stringify(packageConfigBaseline(workspace)));
}

/** The folder's package configs as they are now. */
export function packageConfigBaseline(workspace: string): PackageConfigBaseline {
  return { workspace, files: Object.fromEntries(PACKAGE_CONFIG_FILES.map((name) => [name, identityOf(path.join(workspace, name))])) };
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
 * programs or load code. Returns what went, for the command's output.
 */
export function disarmPackageConfigs(baseline: PackageConfigBaseline | undefined): string[] {
  if (!baseline) return [];
  const removed: string[] = [];
  for (const name of PACKAGE_CONFIG_FILES) {
    const file = path.join(baseline.workspace, name);
    const identity = identityOf(file);
    if (identity === null || identity === baseline.files[name]) continue;
    removed.push(...disarmFile(file, name));
  }
  return removed;
}

function disarmFile(file: string, name: string): string[] {
  const info = lstatSync(file, { throwIfNoEntry: false });
  if (!info || info.isDirectory()) return [];
  // Never rewritten through a link, and never read when huge: such a file goes whole.
  if (!info.isFile() || info.size > MAX_CONFIG_BYTES) {
    rmSync(file, { force: true });
    return [name];
  }
  const text = readFileSync(file, 'utf8');
  const { kept, keys } = name === '.yarnrc.yml' ? withoutYamlKeys(text) : withoutIniKeys(text);
  if (!keys.length) return [];
  // A new file renamed over it: a hard link elsewhere keeps its content, nothing is written through.
  const temporary = `${file}.hermes-${process.pid}.tmp`;
  writeFileSync(temporary, kept, { mode: info.mode & 0o777 });
  renameSync(temporary, file);
  return keys.map((key) => `${name} ${key}`);
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
