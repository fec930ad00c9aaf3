// What a normalised path is: the root, a system directory, a home directory, a raw block device,
// system configuration, a credential or shell start-up file, a project env/config file, a secret
// that must not be read without approval. `isSecretReadPath` and `isProtectedWritePath` are the
// pure entry points the gate also calls for file-tool paths.
import { globToRegExp, isGlobPattern } from './glob';
import { isInside, normaliseContextPath, relativeTo } from './paths';

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
  '.bash_history', '.zsh_history', '.history', '.inputrc', '.vimrc', '.xprofile', '.xinitrc', '.xsessionrc', '.pam_environment',
  '.config/hub', '.vault-token', '.s3cfg', '.boto', '.dockercfg', '.terraformrc',
]);
const CREDENTIAL_DIRECTORIES = [
  '.ssh', '.gnupg', '.hermes', '.hermes-temporal', '.kube', '.docker', '.aws', '.azure', '.config/gcloud', '.config/gh',
  '.config/autostart', '.config/systemd', '.config/environment.d', '.local/share/keyrings', '.password-store', '.terraform.d',
  'Library/LaunchAgents', '.oh-my-zsh/custom', '.bashrc.d', '.profile.d',
];

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
  if (/^\.env\.(?:example|sample|template|dist)(?:\.|$)/.test(base)) return false;
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

/** A dotfile or dot-folder of a home directory (`~/.x`, `/home/u/.x/...`, `/root/.x`): start-up files, tool settings. */
export function isHomeDotfile(path: string, home: string): boolean {
  const homes = [home, ...(/^\/(?:home|Users)\/[^/]+|^\/root/.exec(path) ?? [])];
  return homes.some((directory) => directory !== '/' && isInside(path, directory) && path !== directory && relativeTo(path, directory).startsWith('.'));
}

/** Files under `~/.ssh` that are not secret: public keys, known hosts, the client config. */
const PUBLIC_SSH_FILES = /^\.ssh\/(?:[^/]+\.pub|known_hosts(?:\.old)?|config|authorized_keys)$/;
const SECRET_HOME_FILES = new Set(['.netrc', '.pgpass', '.my.cnf', '.npmrc', '.pypirc', '.git-credentials', '.vault-token', '.s3cfg', '.boto', '.dockercfg', '.docker/config.json', '.kube/config', '.config/gh/hosts.yml', '.config/hub', '.aws/credentials', '.terraform.d/credentials.tfrc.json', '.config/git/credentials', '.config/containers/auth.json']);
const SECRET_HOME_DIRECTORIES = ['.ssh', '.gnupg', '.hermes-temporal', '.kube', '.aws', '.azure', '.config/gcloud', '.local/share/keyrings', '.password-store', '.docker', '.config/temporalio', '.config/hcloud', '.oci'];
const SECRET_SYSTEM_FILES = new Set(['/etc/shadow', '/etc/gshadow', '/etc/shadow-', '/etc/gshadow-', '/etc/sudoers', '/etc/master.passwd', '/proc/kcore', '/dev/mem', '/dev/kmem']);
/** System files that hold secrets although the rest of their folder is public. */
const SECRET_SYSTEM_PATTERNS = [/^\/etc\/sudoers\.d\//, /^\/etc\/ssh\/ssh_host_[^/]*_key$/, /^\/etc\/ssl\/private\//];
/** `/proc/<pid>/environ|mem|maps` (any pid, `self`, a glob): another process's secrets. */
const SECRET_PROC = /^\/proc\/[^/]+\/(?:task\/[^/]+\/)?(?:environ|mem|maps|smaps|cmdline|auxv)$/;

/** `.env`, `.env.local`, `.envrc` (not the committed `.env.example`/`.sample`/`.template`). */
export function isEnvFile(path: string): boolean {
  const base = path.slice(path.lastIndexOf('/') + 1);
  if (/^\.env\.(?:example|sample|template|dist|defaults|schema)(?:\.|$)/.test(base)) return false;
  return /^\.env(?:\.[\w-]+)?$/.test(base) || base === '.envrc';
}

/**
 * A file whose content is a secret: private SSH/GPG keys, cloud and registry credentials, this
 * runtime's home (approver key, session store, config), `.env` files, other processes' memory and
 * environment, `/etc/shadow`. A directory holding them counts too (`tar cz ~/.ssh`).
 * `path` is absolute and normalised (`normaliseContextPath`); `home` is the user's home.
 */
export function isSecretReadPath(path: string, home: string, runtimeHomes: readonly string[] = []): boolean {
  const normalised = normaliseContextPath(path);
  const normalisedHome = normaliseContextPath(home);
  if (SECRET_SYSTEM_FILES.has(normalised) || SECRET_PROC.test(normalised) || /^\/proc\/\*\//.test(normalised)) return true;
  if (SECRET_SYSTEM_PATTERNS.some((pattern) => pattern.test(normalised))) return true;
  if (isEnvFile(normalised)) return true;
  if (runtimeHomes.some((directory) => isInside(normalised, directory) && normalised !== directory)) {
    return true;
  }
  const homes = [normalisedHome, ...(/^\/(?:home|Users)\/[^/]+|^\/root/.exec(normalised) ?? [])];
  return homes.some((directory) => {
    if (directory === '/' || !isInside(normalised, directory) || normalised === directory) return false;
    const relative = relativeTo(normalised, directory);
    if (PUBLIC_SSH_FILES.test(relative) || relative === '.aws/config' || relative === '.docker') return false;
    if (SECRET_HOME_FILES.has(relative)) return true;
    if (SECRET_HOME_DIRECTORIES.some((name) => relative === name || relative.startsWith(`${name}/`))) return true;
    return isGlobPattern(relative) && /^\.(?:ssh|gnupg|aws|kube)(?:\/|$)/.test(relative);
  });
}

/** Directories of this runtime's home (where its config, approver key and session store live), from its protected files. */
export function runtimeHomesOf(protectedFiles: readonly string[], home: string): string[] {
  const directories = protectedFiles.filter((file) => /\/config\.ya?ml$/.test(file)).map((file) => normaliseContextPath(file.slice(0, file.lastIndexOf('/')) || '/'));
  const defaultHome = `${normaliseContextPath(home)}/.hermes-temporal`;
  return [...new Set([defaultHome, ...directories])].filter((directory) => directory !== normaliseContextPath(home) && directory !== '/');
}

export interface ProtectedWriteContext {
  home: string;
  workspaceRoot: string;
  protectedFiles: readonly string[];
}

/**
 * A path that must not be written without approval: devices, system configuration and folders,
 * the home folder itself and its dotfiles (shell start-up files, credentials, autostart, cron),
 * this runtime's own files (config, approver key, session store), project `.env` files, git
 * hooks and repository config, and what a repository keeps its history in.
 */
export function isProtectedWritePath(path: string, context: ProtectedWriteContext): boolean {
  const normalised = normaliseContextPath(path);
  const home = normaliseContextPath(context.home);
  if (context.protectedFiles.some((file) => isInside(normalised, normaliseContextPath(file)))) return true;
  if (runtimeHomesOf(context.protectedFiles, home).some((directory) => isInside(normalised, directory))) return true;
  if (isBlockDevice(normalised) || isOtherDevice(normalised) || isSystemConfigPath(normalised)) return true;
  if (classifyDeleteTarget(normalised, home) !== undefined) return true;
  if (isCredentialPath(normalised, home) || isHomeDotfile(normalised, home) || isGitControlPath(normalised) || isGitHistoryPath(normalised)) return true;
  return isEnvFile(normalised) && isInside(normalised, normaliseContextPath(context.workspaceRoot));
}

/**
 * What git obeys in a repository, at any depth under a `.git` (a submodule's, a linked worktree's
 * too): hooks and config, which it runs when the user next commits, checks out or even asks for
 * the status, outside any sandbox; and what redirects it elsewhere for them (`commondir`, `gitdir`,
 * object alternates, a `.git` file's pointer). Objects, refs, the index and logs are not.
 */
export function isGitControlPath(path: string): boolean {
  return /(?:^|\/)\.git(?:\/(?:.+\/)?(?:hooks|info|worktrees)(?:\/.*)?|\/(?:.+\/)?(?:config|config\.worktree|commondir|gitdir)|\/(?:.+\/)?objects\/info\/alternates|\/modules\/[^/]+)?$/.test(path);
}

/**
 * Where a repository keeps its history, at any depth under a `.git` (a submodule's too): its
 * objects, refs, reflogs, `packed-refs` and `HEAD`. git changes them itself; another program that
 * deletes, overwrites or moves them loses commits, and they are writable in the sandbox (git
 * needs them), unlike what git obeys (above).
 */
export function isGitHistoryPath(path: string): boolean {
  return /(?:^|\/)\.git(?:\/(?:.+\/)?(?:objects|refs|logs)(?:\/.*)?|\/(?:.+\/)?(?:packed-refs|HEAD|ORIG_HEAD))?$/.test(path) && !/\/objects\/info\/alternates$/.test(path);
}

const SENSITIVE_ROOTS = new Set(['etc', 'usr', 'bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32', 'boot', 'var', 'opt', 'srv', 'root', 'sys', 'proc', 'dev', 'System', 'Library', 'private', 'snap', 'nix', 'run', 'mnt', 'media', 'home', 'Users', 'Applications']);
const HARMLESS_OUTSIDE = /^\/(?:tmp|var\/tmp|dev\/(?:null|zero|stdout|stderr|stdin|tty|urandom|random|fd\/\d+|shm(?:\/.*)?))(?:\/|$)/;

/**
 * A path outside the workspace that an unknown program should not be handed without approval:
 * the root, system folders, the home folder itself and its dotfiles, other users' homes, devices,
 * secrets. Plain files under the home folder (`~/Downloads/x`) and `/tmp` are not.
 */
export function isSensitiveOutsideWorkspace(path: string, home: string, workspaceRoot: string): boolean {
  if (isInside(path, workspaceRoot) && !isEnvFile(path)) return false;
  if (HARMLESS_OUTSIDE.test(path)) return false;
  if (path === '/' || isHomeDirectory(path, home) || isHomeDotfile(path, home) || isSecretReadPath(path, home)) return true;
  if (isInside(path, home) && home !== '/') return false;
  if (/^\/(?:home|Users)\/[^/]+\//.test(path)) return false;
  const first = path.split('/')[1] ?? '';
  return SENSITIVE_ROOTS.has(first);
}
