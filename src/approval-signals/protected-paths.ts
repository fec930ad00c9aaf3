// Which resolved paths a file tool may not touch without a human: files whose change would
// change the approval policy or take over the machine (protected writes), and files that hold
// secrets (secret reads). Pure; built on the detector's path classes. Paths are absolute,
// normalised and already resolved through symbolic links.
import { isCredentialPath, isSystemConfigPath } from './detector/path-classes';
import { isInside } from './detector/paths';

export interface ProtectedPathContext {
  home: string;
  workspaceRoot: string;
  /** Files (or folders, written with a trailing `/`) of this project: config, allowlist, approver keys, stores. */
  protectedFiles: readonly string[];
}

/** System files that hold secrets even though the rest of their folder is public. */
const SYSTEM_SECRETS = [/^\/etc\/(?:g?shadow|sudoers)(?:-|$)/, /^\/etc\/sudoers\.d\//, /^\/etc\/ssh\/ssh_host_.*_key$/, /^\/etc\/ssl\/private\//];
const PROCESS_ENVIRONMENT = /^\/proc\/(?:self|\d+|thread-self)\/(?:environ|mem|task\/\d+\/environ)$/;

/** True when reading `path` would reveal a secret: credentials, keys, a process environment. */
export function isSecretReadPath(path: string, home: string): boolean {
  return isCredentialPath(path, home) || SYSTEM_SECRETS.some((pattern) => pattern.test(path)) || PROCESS_ENVIRONMENT.test(path);
}

/** True when writing `path` needs a human: credentials, shell start-up files, system files, this project's own files. */
export function isProtectedWritePath(path: string, context: ProtectedPathContext): boolean {
  return (
    isCredentialPath(path, context.home) ||
    isSystemConfigPath(path) ||
    path.startsWith('/dev/') ||
    matchesProtectedFile(path, context.protectedFiles)
  );
}

/** `path` is one of the files, or lies in one of the folders (`…/`), or would replace a parent of one. */
export function matchesProtectedFile(path: string, protectedFiles: readonly string[]): boolean {
  return protectedFiles.some((file) => {
    const folder = file.endsWith('/');
    const target = folder ? file.slice(0, -1) : file;
    return path === target || (folder && isInside(path, target));
  });
}

/** True when a search rooted at `root` would walk into a folder holding secrets (or into one of the files). */
export function searchReachesSecrets(root: string, home: string, secretFiles: readonly string[]): boolean {
  if (isSecretReadPath(root, home) || matchesProtectedFile(root, secretFiles)) return true;
  // Walking home, or anything above it, walks ~/.ssh; walking above a secret file walks into it.
  return isInside(home, root) || secretFiles.some((file) => isInside(file.replace(/\/$/, ''), root));
}
