// Where the worker finds the programs it runs OUTSIDE the sandbox (bwrap itself, bash for its
// control scripts, git, the temporal CLI, hooks, unsandboxed MCP servers). Never the inherited
// PATH as it is: `npx` puts `<cwd>/node_modules/.bin` (and each parent's) first, and the session's
// workspace, which sandboxed commands write, is usually that cwd. A program planted there would
// run with the worker's rights. Commands inside the sandbox keep the user's PATH: their lookups
// are contained.
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import { isWithin, realOrSelf } from './path-within';

/** Searched when PATH names nothing trustworthy: the system's own folders. */
const SYSTEM_DIRECTORIES = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

/**
 * The PATH entries a program of ours may come from: absolute ones outside any `node_modules`
 * folder (npm and npx put a project's package binaries there). A relative entry (`.`, an empty
 * one, `./node_modules/.bin`) names whatever folder the process happens to be in.
 */
export function trustedDirectories(searchPath: string): string[] {
  const directories = searchPath
    .split(path.delimiter)
    .filter((entry) => path.isAbsolute(entry) && !path.normalize(entry).split(path.sep).includes('node_modules'))
    .map((entry) => path.resolve(entry));
  return [...new Set(directories.length ? directories : SYSTEM_DIRECTORIES)];
}

/** The first executable file named `program` in `directories`. */
export function findProgram(program: string, directories: readonly string[]): string | undefined {
  for (const directory of directories) {
    const candidate = path.join(directory, program);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

export interface TrustedLookup {
  /** Folders sandboxed commands may write (the session's workspace): nothing found there is run. */
  outside?: readonly (string | undefined)[];
}

/** The trusted folders of this process's PATH, taken once: a later change of PATH does not count. */
let processDirectories: string[] | undefined;
/** Programs already found, by name: looked up once per process. */
const found = new Map<string, string>();

function directoriesOfThisProcess(): string[] {
  processDirectories ??= trustedDirectories(process.env.PATH ?? '');
  return processDirectories;
}

/**
 * The absolute path to run `program` from, outside the sandbox. An absolute `program` (a
 * configured path) is used as given; a bare name is looked up on the trusted PATH. Throws, naming
 * the path and why, when it is not found or when what was found lies in a folder of `outside`.
 */
export function trustedProgram(program: string, lookup: TrustedLookup = {}): string {
  if (program.includes('/')) return program;
  let resolved = found.get(program);
  if (!resolved) {
    resolved = findProgram(program, directoriesOfThisProcess());
    if (!resolved) {
      throw new Error(`'${program}' was not found on PATH (relative entries and node_modules folders of PATH are not searched for programs run outside the sandbox)`);
    }
    found.set(program, resolved);
  }
  refuseInsideWorkspace(program, resolved, lookup);
  return resolved;
}

/** Throws, naming the path and why, when `resolved` (found for `program`) lies in a folder of `lookup.outside`. */
export function refuseInsideWorkspace(program: string, resolved: string, lookup: TrustedLookup): void {
  const workspace = containingWorkspace(resolved, lookup.outside ?? []);
  if (!workspace) return;
  throw new Error(
    `refusing to run ${resolved} for '${program}': it lies in the session's workspace ${workspace}, which sandboxed commands can write; ` +
      'install it outside the workspace or configure its absolute path',
  );
}

/**
 * PATH for a script the worker runs outside the sandbox: the trusted folders, without those in a
 * folder of `outside`, so that none of the script's own lookups can land on a planted program.
 */
export function trustedSearchPath(lookup: TrustedLookup = {}): string {
  const outside = lookup.outside ?? [];
  const directories = directoriesOfThisProcess().filter((directory) => !containingWorkspace(directory, outside));
  return (directories.length ? directories : SYSTEM_DIRECTORIES).join(path.delimiter);
}

/**
 * Throws when a program the worker runs outside the sandbox, or a file it is handed (the script
 * an interpreter runs, also as `--option=file`), lies in a folder of `lookup.outside`: sandboxed
 * commands and file tools write there, and the program runs with the worker's rights and
 * environment. Relative words are files in `base`, where the program runs.
 */
export function refuseWorkspaceFiles(words: readonly string[], lookup: TrustedLookup, base: string, what: string): void {
  for (const word of words) {
    for (const candidate of new Set([word, word.slice(word.indexOf('=') + 1)])) {
      const file = candidate && path.resolve(base, candidate);
      if (!file || !isFile(file)) continue;
      const workspace = containingWorkspace(file, lookup.outside ?? []);
      if (workspace) {
        throw new Error(
          `refusing to run ${what}: ${file} lies in the session's workspace ${workspace}, which sandboxed commands and file tools can write; keep its programs and scripts outside it`,
        );
      }
    }
  }
}

function isFile(target: string): boolean {
  try {
    return statSync(target).isFile();
  } catch {
    return false;
  }
}

/** The folder of `outside` that holds `target` (itself or where its links lead), if any. */
export function containingWorkspace(target: string, outside: readonly (string | undefined)[]): string | undefined {
  const forms = [path.resolve(target), realOrSelf(target)];
  for (const workspace of outside) {
    // A workspace of `/` stays read-only in the sandbox (local-sandbox.ts).
    if (!workspace || path.resolve(workspace) === '/') continue;
    const workspaceForms = [path.resolve(workspace), realOrSelf(workspace)];
    if (forms.some((form) => workspaceForms.some((directory) => isWithin(form, directory)))) return workspace;
  }
  return undefined;
}

/** An existing regular file this process may execute. */
export function isExecutableFile(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}


