// Which resolved paths a file tool may not touch without a human: files whose change would
// change the approval policy or take over the machine (protected writes), and files that hold
// secrets (secret reads). Pure; built on the detector's path classes. Paths are absolute,
// normalised and already resolved through symbolic links.
import { isSecretReadPath } from './detector/path-classes';
import { isInside } from './detector/paths';

// One notion of a secret or protected path for the detector (commands) and the gate (file tools).
export { isProtectedWritePath, isSecretReadPath, type ProtectedWriteContext } from './detector/path-classes';

/** `path` is one of the files, or lies in one of the folders (`…/`), or would replace a parent of one. */
export function matchesProtectedFile(path: string, protectedFiles: readonly string[]): boolean {
  return protectedFiles.some((file) => {
    const folder = file.endsWith('/');
    const target = folder ? file.slice(0, -1) : file;
    return path === target || (folder && isInside(path, target));
  });
}

/**
 * What a read_file of `path` would wait for a human for: a secret file (`~/.ssh/…`, `.env`,
 * `/etc/shadow`) or one of the worker's own (its home, stores, approver key). `path` is real.
 */
export function isSecretRead(path: string, home: string, secretFiles: readonly string[]): boolean {
  return isSecretReadPath(path, home) || matchesProtectedFile(path, secretFiles);
}

/** True when a search rooted at `root` would walk into a folder holding secrets (or into one of the files). */
export function searchReachesSecrets(root: string, home: string, secretFiles: readonly string[]): boolean {
  if (isSecretRead(root, home, secretFiles)) return true;
  // Walking home, or anything above it, walks ~/.ssh; walking above a secret file walks into it.
  return isInside(home, root) || secretFiles.some((file) => isInside(file.replace(/\/$/, ''), root));
}
