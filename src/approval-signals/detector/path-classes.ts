// What a normalised path is: the root, a system directory, a home directory, a raw block device,
// system configuration, a credential or shell start-up file, a project env/config file.
import { globToRegExp, isGlobPattern } from './glob';
import { isInside, relativeTo } from './paths';

/** Directories whose recursive deletion ruins the machine (hardline), with their `/*` contents. */
const SYSTEM_DIRECTORIES = new Set([
  '/etc', '/usr', '/bin', '/boot', '/lib', '/lib32', '/lib64', '/libx32', '/sbin', '/var', '/opt', '/srv', '/root', '/sys',
  '/proc', '/dev', '/home', '/Users', '/System', '/Library', '/Applications', '/private', '/private/etc', '/private/var',
  '/usr/bin', '/usr/sbin', '/usr/lib', '/usr/lib64', '/usr/local', '/usr/share', '/var/lib', '/snap', '/nix', '/run',
]);

const TOP_LEVEL_SYSTEM_NAMES = [...SYSTEM_DIRECTORIES].filter((path) => path.lastIndexOf('/') === 0).map((path) => path.slice(1));


export type DeleteTargetClass = 'root' | 'system' | 'home' | undefined;

/** How bad a recursive delete of `path` is (`path` is normalised and absolute). */
export function classifyDeleteTarget(path: string, home: string): DeleteTargetClass {
  const components = path.split('/').filter(Boolean);
  const last = components[components.length - 1] ?? '';
  const parent = `/${components.slice(0, -1).join('/')}`;
  if (components.length === 0) return 'root';
  if (components.length === 1 && /^[*]+$|^\.\*$|^\*\.?\*?$/.test(last)) return 'root';
  if (isHomeDirectory(path, home) || (isGlobPattern(last) && isHomeDirectory(parent, home))) return 'home';
  if (SYSTEM_DIRECTORIES.has(path)) return 'system';
  if (isGlobPattern(last) && (SYSTEM_DIRECTORIES.has(parent) || parent === '/')) {
    if (parent !== '/') return 'system';
    const pattern = globToRegExp(last);
    if (TOP_LEVEL_SYSTEM_NAMES.some((name) => pattern.test(name))) return 'system';
  }
  return undefined;
}

/** The user's home, or any user's home (`/home/<user>`, `/Users/<user>`). */
export function isHomeDirectory(path: string, home: string): boolean {
  if (path === home && home !== '/') return true;
  return /^\/(?:home|Users)\/[^/]+$/.test(path);
}

const BLOCK_DEVICE = /^\/dev\/(?:sd[a-z]+\d*|hd[a-z]+\d*|vd[a-z]+\d*|xvd[a-z]+\d*|nvme\d+n\d+(?:p\d+)?|mmcblk\d+(?:p\d+)?|r?disk\d+(?:s\d+)*|dm-\d+|md\d+|mapper\/.+|loop\d+|sr\d+|nbd\d+|mem|kmem|port)$/;
const HARMLESS_DEVICES = /^\/dev\/(?:null|zero|full|random|urandom|stdin|stdout|stderr|tty\d*|ptmx|pts\/.*|fd\/.*|shm\/.*)$/;

export function isBlockDevice(path: string): boolean {
  return BLOCK_DEVICE.test(path);
}

/** A device other than the harmless ones (`/dev/null`, `/dev/stdout`, terminals). */
export function isOtherDevice(path: string): boolean {
  return path.startsWith('/dev/') && !HARMLESS_DEVICES.test(path) && !BLOCK_DEVICE.test(path);
}

const SYSTEM_CONFIG_ROOTS = ['/etc', '/private', '/boot', '/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/sys', '/System', '/Library', '/var/spool/cron', '/var/lib/dpkg'];

export function isSystemConfigPath(path: string): boolean {
  if (path.startsWith('/proc/')) return !/^\/proc\/(?:self|\d+)\/fd\//.test(path);
  return SYSTEM_CONFIG_ROOTS.some((root) => isInside(path, root));
}

/** Paths relative to a home directory that hold credentials or run at shell start-up. */
const CREDENTIAL_FILES = new Set([
  '.bashrc', '.bash_profile', '.bash_login', '.bash_logout', '.profile', '.zshrc', '.zprofile', '.zshenv', '.zlogin', '.kshrc',
  '.cshrc', '.tcshrc', '.netrc', '.pgpass', '.my.cnf', '.npmrc', '.pypirc', '.git-credentials', '.gitconfig', '.aws/credentials',
  '.aws/config', '.docker/config.json', '.kube/config', '.config/fish/config.fish', '.config/gh/hosts.yml',
]);
const CREDENTIAL_DIRECTORIES = ['.ssh', '.gnupg', '.hermes', '.hermes-temporal'];

export function isCredentialPath(path: string, home: string): boolean {
  const homes = [home, ...(/^\/(?:home|Users)\/[^/]+|^\/root/.exec(path) ?? [])];
  return homes.some((directory) => {
    if (!isInside(path, directory) || path === directory) return false;
    const relative = relativeTo(path, directory);
    return CREDENTIAL_FILES.has(relative) || CREDENTIAL_DIRECTORIES.some((name) => relative === name || relative.startsWith(`${name}/`));
  });
}

/** `.env`, `.env.local`, `.envrc`, `config.yaml`: project secrets and configuration by name. */
export function isProjectEnvOrConfig(path: string): boolean {
  const base = path.slice(path.lastIndexOf('/') + 1);
  return /^\.env(?:\.[\w.-]+)?$/.test(base) || base === '.envrc' || /^config\.ya?ml$/.test(base);
}

const BUILD_DIRECTORIES = new Set([
  'node_modules', 'dist', 'build', '.cache', 'target', '__pycache__', 'coverage', '.next', 'tmp', '.pytest_cache',
  '.mypy_cache', '.ruff_cache', '.turbo', '.parcel-cache', '.nuxt', '.svelte-kit', 'out', '.tox', '.gradle',
]);

/** Inside the workspace (not the workspace itself) and at or below a build/cache directory. */
export function isBuildOrCachePath(path: string, workspaceRoot: string): boolean {
  if (!isInside(path, workspaceRoot) || path === workspaceRoot) return false;
  const components = relativeTo(path, workspaceRoot).split('/');
  const first = components.findIndex((component) => BUILD_DIRECTORIES.has(component));
  if (first === -1) return false;
  return !components.slice(0, first + 1).some(isGlobPattern);
}
