// The worker itself (outside the sandbox) reads, rewrites, renames and removes files inside the
// workspace by path: the package configs, code files and repository hooks it disarms. A command
// can swap a folder on such a path for a symbolic link (`ln -s ~ packages/app`), and a path the
// worker then opens would lead out of the workspace (to ~/.npmrc). Here every folder below the
// workspace is opened without following a link, each inside the one opened before it, and the
// file is named through the last one's descriptor (/proc/self/fd/N/name): that stays the folder
// that was opened, even if the path is swapped again meanwhile.
import { closeSync, constants, existsSync, lstatSync, mkdirSync, openSync, readdirSync, rmdirSync, rmSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { isWithin } from './path-within';

const FOLDER_NO_FOLLOW = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

const SLASH = Buffer.from('/');
/** Folders deeper than this in what `removeBeneath` removes stay (each level holds a descriptor). */
const REMOVAL_DEPTH = 64;
/** Times one name is tried again when a script swaps it between a file and a folder meanwhile. */
const REMOVAL_ATTEMPTS = 3;

let procFds: boolean | undefined;

/**
 * Calls `use` with a name for `file` (absolute, inside `root`) whose folders, below `root`, are
 * real folders, never links; undefined without calling it when one is a link, is missing, or
 * `file` is not inside `root`. The name is good only during the call. `root` itself is trusted
 * (the workspace's real path, which no command can replace).
 */
export function withinFolderBeneath<T>(root: string, file: string, use: (named: string) => T): T | undefined {
  if (!isWithin(file, root) || file === root) return undefined;
  const name = path.basename(file);
  return inRealFolder(root, path.dirname(file), (folder) => use(`${folder}/${name}`));
}

/**
 * Calls `use` with a name for `folder` (absolute, `root` or inside it) that leads to it only if
 * neither it nor a folder between it and `root` is a link; undefined without calling it otherwise.
 * What `use` lists or removes through that name stays in that very folder.
 */
export function inRealFolder<T>(root: string, folder: string, use: (named: string) => T): T | undefined {
  if (!isWithin(folder, root)) return undefined;
  const folders = path.relative(root, folder).split(path.sep).filter(Boolean);
  if (!(procFds ??= existsSync('/proc/self/fd'))) return foldersAreReal(root, folders) ? use(path.join(root, ...folders)) : undefined;
  return throughFolderChain(root, folders.map((folder) => Buffer.from(folder)), (named) => use(named.toString()));
}

/**
 * Calls `use` with the /proc name of `root`'s folder `parts` (names as bytes, as git gives them),
 * each folder opened inside the one before it without following a link; undefined without calling
 * it when one is a link or no folder. `root` itself is trusted. `makeMissing`: a folder not there
 * is made (inside the one opened before it) rather than the call refused.
 */
export function throughFolderChain<T>(root: string, parts: readonly Buffer[], use: (named: Buffer) => T, makeMissing = false): T | undefined {
  const opened: number[] = [];
  try {
    let current = Buffer.from(root);
    for (const below of [undefined, ...parts]) {
      // The root as named; every folder below it only if it is no link.
      const descriptor = below ? openFolderBelow(Buffer.concat([current, SLASH, below]), makeMissing) : openOrUndefined(current, FOLDER_NO_FOLLOW & ~constants.O_NOFOLLOW);
      if (descriptor === undefined) return undefined;
      opened.push(descriptor);
      current = Buffer.from(`/proc/self/fd/${descriptor}`);
    }
    return use(current);
  } finally {
    for (const descriptor of opened) closeSync(descriptor);
  }
}

/**
 * Makes `folder` (a real path when it was resolved: no link on it) with its missing parents, each
 * inside the folder opened before it and never through a link, so a folder swapped for a link
 * since it was resolved gets nothing made beyond it (`mkdir -p` would follow it). Throws EPERM
 * when a part of the path is no longer a folder.
 */
export function makeRealFolders(folder: string): void {
  if (!(procFds ??= existsSync('/proc/self/fd'))) {
    mkdirSync(folder, { recursive: true });
    return;
  }
  let parent = openSync('/', FOLDER_NO_FOLLOW & ~constants.O_NOFOLLOW);
  try {
    for (const part of folder.split('/').filter(Boolean)) {
      const named = `/proc/self/fd/${parent}/${part}`;
      let opened = openOrUndefined(named, FOLDER_NO_FOLLOW);
      if (opened === undefined && !lstatSync(named, { throwIfNoEntry: false })) {
        mkdirSync(named);
        opened = openOrUndefined(named, FOLDER_NO_FOLLOW);
      }
      if (opened === undefined) {
        throw Object.assign(new Error(`${folder}: ${part} is no longer a folder on that path (a link or a file); nothing was made there`), { code: 'EPERM' });
      }
      closeSync(parent);
      parent = opened;
    }
  } finally {
    closeSync(parent);
  }
}

/**
 * Removes `name` from `folder` (a name from these functions): a file or link as itself, a folder
 * with all it holds. Each folder is opened without following a link and emptied through its
 * descriptor, never by a path a script could swap a link into while the removal runs (`rm -r`
 * would then delete where the link leads). Returns whether `name` is gone.
 */
export function removeBeneath(folder: string, name: string): boolean {
  if (!(procFds ??= existsSync('/proc/self/fd'))) {
    rmSync(path.join(folder, name), { recursive: true, force: true });
    return true;
  }
  return removeNamed(Buffer.from(`${folder}/${name}`), REMOVAL_DEPTH);
}

/** Names as bytes: one that is no UTF-8 (a script can make it) is removed all the same. */
function removeNamed(named: Buffer, depth: number): boolean {
  for (let attempt = 0; attempt < REMOVAL_ATTEMPTS; attempt++) {
    const opened = openOrUndefined(named, FOLDER_NO_FOLLOW);
    if (opened === undefined) {
      // No folder (a file, a link, nothing): unlink never follows the last name.
      if (removedBy(() => unlinkSync(named))) return true;
      continue;
    }
    try {
      const inside = Buffer.from(`/proc/self/fd/${opened}/`);
      if (depth > 0) for (const entry of readdirSync(inside, { encoding: 'buffer' })) removeNamed(Buffer.concat([inside, entry]), depth - 1);
    } finally {
      closeSync(opened);
    }
    // rmdir does not follow a link either: one swapped in since is tried again as a link.
    if (removedBy(() => rmdirSync(named))) return true;
  }
  return false;
}

/** Whether the name is gone after `remove`; false when it changed kind meanwhile or still holds something. */
function removedBy(remove: () => void): boolean {
  try {
    remove();
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return true;
    if (['EISDIR', 'EPERM', 'ENOTDIR', 'ENOTEMPTY', 'EEXIST'].includes(code ?? '')) return false;
    throw error;
  }
}

/** A name from these functions as a child process (git) can use it: this process's descriptors, not its own. */
export function nameForChildProcess(named: string): string {
  return named.startsWith('/proc/self/') ? `/proc/${process.pid}/${named.slice('/proc/self/'.length)}` : named;
}

function openFolderBelow(named: Buffer, makeMissing: boolean): number | undefined {
  const opened = openOrUndefined(named, FOLDER_NO_FOLLOW);
  if (opened !== undefined || !makeMissing || lstatSync(named, { throwIfNoEntry: false })) return opened;
  try {
    mkdirSync(named);
  } catch {
    // Made by someone else meanwhile (a folder or not): the open below decides.
  }
  return openOrUndefined(named, FOLDER_NO_FOLLOW);
}

/** A descriptor for `target`, or undefined when it cannot be opened so (a link, gone, the wrong kind). */
export function openOrUndefined(target: string | Buffer, flags: number): number | undefined {
  try {
    return openSync(target, flags);
  } catch {
    return undefined;
  }
}

/** Without /proc (not Linux, where no sandbox runs anyway): each folder is checked to be no link, once. */
function foldersAreReal(root: string, folders: readonly string[]): boolean {
  let current = root;
  for (const folder of folders) {
    current = path.join(current, folder);
    const info = lstatSync(current, { throwIfNoEntry: false });
    if (!info?.isDirectory()) return false;
  }
  return true;
}
