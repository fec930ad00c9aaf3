// Path normalisation for targets: `~`, `$HOME`, `${HOME}` and `$PWD` folded, relative paths
// resolved against the command's working directory, `.`/`..`/`//` collapsed, trailing slashes
// removed. Windows drive paths (`C:\Users\x`) are kept as `C:/Users/x`.
import type { ShellWord } from './analysis-types';

export interface ResolvedPath {
  /** Absolute normalised path (glob and unknown parts kept as written), or `null` when unknown. */
  path: string | null;
  /** Part of the path is only known at run time. */
  dynamic: boolean;
  glob: boolean;
}

const DYNAMIC_PART = /\$\([^()]*(?:\([^()]*\)[^()]*)*\)|`[^`]*`|\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*|\$[0-9@*#?$!-]/g;
const MARKER = '\uE020';

export function resolvePath(word: ShellWord | string, cwd: string | null, home: string): ResolvedPath {
  const raw = typeof word === 'string' ? word : word.raw;
  const windows = windowsPath(raw);
  if (windows) return { path: normalisePath(windows), dynamic: false, glob: /[*?]/.test(windows) };
  const text = typeof word === 'string' ? word : (word.guess ?? word.value);
  const glob = typeof word === 'string' ? /[*?]/.test(word) : word.glob;
  let folded = foldHome(text, cwd, home);
  if (folded === undefined) return { path: null, dynamic: true, glob };
  const parts: string[] = [];
  folded = folded.replace(DYNAMIC_PART, (part) => {
    parts.push(part);
    return MARKER;
  });
  const dynamic = parts.length > 0 || folded.includes('$') || folded.includes('`');
  if (!folded.startsWith('/') && !/^[A-Za-z]:\//.test(folded)) {
    if (cwd === null || folded.startsWith(MARKER)) return { path: null, dynamic: true, glob };
    folded = `${cwd}/${folded}`;
  }
  let index = 0;
  const path = normalisePath(folded).replace(new RegExp(MARKER, 'g'), () => parts[index++] ?? '$');
  return { path, dynamic, glob };
}

/** `~`, `~/x`, `~user`, `$HOME`, `${HOME}`, `$PWD`: quoted or not (a literal `~` directory is rare; caution wins). */
function foldHome(text: string, cwd: string | null, home: string): string | undefined {
  const homeMatch = /^(?:~|\$HOME\b|\$\{HOME\})(?=\/|$)/.exec(text);
  if (homeMatch) return home + text.slice(homeMatch[0].length);
  const pwdMatch = /^(?:\$PWD\b|\$\{PWD\})(?=\/|$)/.exec(text);
  if (pwdMatch) return cwd === null ? undefined : cwd + text.slice(pwdMatch[0].length);
  const userMatch = /^~([a-z_][a-z0-9_-]*)(?=\/|$)/i.exec(text);
  if (userMatch) return (userMatch[1] === 'root' ? '/root' : `/home/${userMatch[1]}`) + text.slice(userMatch[0].length);
  return text;
}

function windowsPath(raw: string): string | undefined {
  const unquoted = raw.replace(/^(['"])(.*)\1$/s, '$2');
  return /^[A-Za-z]:[\\/]/.test(unquoted) ? unquoted.replace(/\\+/g, '/') : undefined;
}

/** Collapses `//`, `.` and `..` (`/..` is `/`) and drops trailing slashes. */
export function normalisePath(path: string): string {
  const drive = /^[A-Za-z]:(?=\/)/.exec(path)?.[0] ?? '';
  const components: string[] = [];
  for (const component of path.slice(drive.length).split('/')) {
    if (component === '' || component === '.') continue;
    if (component === '..') components.pop();
    else components.push(component);
  }
  return `${drive}/${components.join('/')}`;
}

/** Normalises a context path (cwd, workspace root, home): absolute, no trailing slash. */
export function normaliseContextPath(path: string): string {
  const windows = windowsPath(path);
  return normalisePath(windows ?? (path.startsWith('/') ? path : `/${path}`));
}

export function isInside(path: string, directory: string): boolean {
  const [left, right] = /^[A-Za-z]:/.test(directory) ? [path.toLowerCase(), directory.toLowerCase()] : [path, directory];
  return left === right || left.startsWith(right === '/' ? '/' : `${right}/`);
}

export function isStrictlyInside(path: string, directory: string): boolean {
  return isInside(path, directory) && !isInside(directory, path);
}

/** The path as shown in approval keys: the home directory folded to `~`. */
export function displayPath(path: string, home: string): string {
  if (home !== '/' && isInside(path, home)) return `~${path.slice(home.length)}`;
  return path;
}

/** Path relative to `directory` (which must contain it), `''` for the directory itself. */
export function relativeTo(path: string, directory: string): string {
  return path.slice(directory === '/' ? 1 : directory.length + 1);
}
