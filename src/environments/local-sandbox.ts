// The local backend's sandbox: every command (foreground, background, PTY, and all it starts)
// runs under bubblewrap with its own PID, IPC, UTS and (by default) network namespace, a
// read-only system, the workspace writable (but not its repositories' hooks and config), other
// data folders hidden (sandbox-read-scope.ts), the user's secrets and the runtime's own files
// hidden, a private size-capped /tmp, no capabilities, and caps on processes, memory and file size.
// Decision (vs @anthropic-ai/sandbox-runtime): see README.md "Security" — we drive bwrap ourselves.
import { spawnSync } from 'node:child_process';
import { mkdirSync, renameSync, readdirSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gitGuardArguments, isDirectory, workTreesOf } from './git-control';
import { unixSocketFilter } from './sandbox-seccomp';
import { JOIN_SESSION_GROUP, SessionProcessCaps } from './session-process-caps';
import { shellQuote } from './shell-quote';
import { trustedProgram, trustedSearchPath, type TrustedLookup } from './trusted-programs';
import { isWithin, realOrSelf } from './path-within';
import { isShownInSandbox, readScopeMounts, recentReadScope, type ReadScope } from './sandbox-read-scope';
import { bwrapMounts, hostMounts, mountAuditScript, type HostMount } from './sandbox-mount-audit';
import { ensureRuntimeTemporaryFolders, runtimeTemporaryFolders, sandboxFilesFolderName } from './runtime-temp-folders';
import { otherLiveWorkspacesWithin } from './live-workspaces';

export type SandboxMode = 'on' | 'off';
/** none: the sandbox has only its own loopback; host: the machine's network (loopback included). */
export type SandboxNetwork = 'none' | 'host';

export interface LocalSandboxSettings {
  mode: SandboxMode;
  network: SandboxNetwork;
  /** Processes a session may run at once (pids cgroup as root, RLIMIT_NPROC otherwise). */
  maxProcesses: number;
  /** Address space of each process (RLIMIT_AS), in MiB. */
  maxMemoryMb: number;
  /** Largest file a command may write (RLIMIT_FSIZE), in MiB. */
  maxFileSizeMb: number;
  /** Size of the private /tmp, in MiB. */
  tmpSizeMb: number;
  /** More files or folders to hide, on top of the built-in list. */
  hiddenPaths: readonly string[];
  /** Folders to show although they hold data (`~/` is the home folder): see sandbox-read-scope.ts. */
  readPaths?: readonly string[];
  /** The runtime's own files to hide: hermes home, session store, dev server database. */
  runtimePaths: readonly string[];
  /** Names to hide in every session's workspace (the project config file). */
  workspaceHiddenNames?: readonly string[];
  bwrapPath?: string;
}

export const DEFAULT_SANDBOX_SETTINGS: LocalSandboxSettings = {
  mode: 'on',
  network: 'none',
  maxProcesses: 512,
  maxMemoryMb: 8192,
  maxFileSizeMb: 4096,
  tmpSizeMb: 1024,
  hiddenPaths: [],
  runtimePaths: [],
};

/**
 * Secrets in a home folder that no command needs to read: credentials of cloud CLIs, package
 * registries, SSH and GPG, AI tools, shell start-up files and histories. The one list; `terminal.local.hidden_paths` adds more.
 */
export const HIDDEN_HOME_ENTRIES = [
  '.hermes-temporal',
  '.ssh',
  '.aws',
  '.azure',
  '.config/gcloud',
  '.config/gh',
  '.config/hub',
  '.kube',
  '.docker',
  '.netrc',
  '.pgpass',
  '.gnupg',
  '.git-credentials',
  '.npmrc',
  '.yarnrc',
  '.yarnrc.yml',
  '.pypirc',
  '.gem/credentials',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.m2/settings.xml',
  '.gradle/gradle.properties',
  '.terraform.d',
  '.vault-token',
  '.password-store',
  '.local/share/keyrings',
  '.my.cnf',
  '.s3cfg',
  '.boto',
  '.dockercfg',
  '.claude',
  '.config/rclone',
  '.config/op',
  '.config/doctl',
  '.config/git/credentials',
  '.config/temporalio',
  '.config/containers/auth.json',
  '.config/hcloud',
  '.oci',
  '.cache/huggingface/token',
  '.huggingface/token',
  // Start-up files: where people export their keys. Commands run non-interactive shells, which do not read them.
  '.bashrc',
  '.bash_profile',
  '.bash_login',
  '.profile',
  '.zshrc',
  '.zshenv',
  '.zprofile',
  '.zlogin',
  '.config/fish',
  '.bash_history',
  '.zsh_history',
  '.python_history',
  '.psql_history',
  '.mysql_history',
  '.node_repl_history',
] as const;

/** Hidden entries directly in a home: left out of the home the sandbox shows instead of hidden over. */
const TOP_LEVEL_HIDDEN_HOME_ENTRIES: ReadonlySet<string> = new Set(HIDDEN_HOME_ENTRIES.filter((entry) => !entry.includes('/')));

/** What a sandbox shows of this machine for one workspace (sandbox-read-scope.ts), and the secrets hidden on top. */
interface SandboxView {
  scope: ReadScope;
  mounts: ReturnType<typeof readScopeMounts>;
  hidden: { path: string; directory: boolean }[];
}

/** Other processes' folders in /proc: the sandbox has a /proc of its own, where none of them are. */
const HOST_PROCESS = /^\/proc\/\d+(?:\/|$)/;

/**
 * Closes every descriptor above the standard three before the command runs. Ours are all
 * close-on-exec, but one the worker inherited from whatever started it (a supervisor's socket, an
 * open secrets file) would reach every command, through bwrap, and be read through.
 */
const CLOSE_INHERITED_DESCRIPTORS = 'for fd in /proc/self/fd/*; do fd=${fd##*/}; case $fd in 0 | 1 | 2 | *[!0-9]*) ;; *) eval "exec $fd>&-" ;; esac; done';
/** System files root could read even without capabilities (it owns them). */
const HIDDEN_SYSTEM_PATHS = ['/etc/shadow', '/etc/gshadow', '/etc/shadow-', '/etc/gshadow-', '/etc/sudoers', '/etc/sudoers.d', '/etc/ssl/private'];
/** Runtime sockets and per-boot state (the Docker socket lives here); replaced by empty tmpfs. */
const PRIVATE_DIRECTORIES = ['/run', '/var/run', '/var/tmp'];
/** SQLite keeps these beside a database file. */
const SQLITE_COMPANIONS = ['', '-wal', '-shm', '-journal'];

export interface SandboxCommand {
  /** The program to spawn and its arguments. */
  file: string;
  args: string[];
}

export interface SandboxRunOptions {
  /** The session's workspace: the one place a command may write. */
  workspace: string;
  /** Where the command starts. */
  cwd: string;
  /** Files the wrapper itself writes (the cwd file), bound in writable. */
  wrapperFiles?: readonly string[];
  /** Groups this session's processes for the process cap. */
  sessionKey: string;
  /** Work trees nested in the workspace (relative to it) whose repositories are guarded like its own. */
  nestedRepositories?: readonly string[];
  /** The PATH the command sees inside; defaults to the worker's (the launcher's own is the trusted one). */
  path?: string;
  /** More folders to show for this command alone (an MCP server's own program folders). */
  readPaths?: readonly string[];
}

export interface SandboxState {
  /** True when commands run sandboxed. */
  active: boolean;
  /** Why commands cannot run at all (no sandbox and sandbox not turned off). */
  unavailableReason?: string;
  /** One line for `hermes-temporal tools` and the worker's start-up log. */
  summary: string;
  /** Said at start-up when set (sandbox turned off). */
  warning?: string;
}

/** How long a looked-up list of hidden paths is reused: a secret the user adds is hidden within this. */
const HIDDEN_PATHS_TTL_MS = 2000;

export class LocalSandbox {
  private probed?: SandboxState;
  private seccompFile?: string | null;
  private emptyDirectory?: string | null;
  /** As root, where RLIMIT_NPROC does not apply, the process cap is a pids cgroup per session. */
  readonly processCaps: SessionProcessCaps;
  /** ~100 realpath/stat calls per command cost milliseconds: the answer is kept briefly. */
  private viewCache?: { key: string; at: number; view: SandboxView };
  private hiddenCache?: { workspace: string; sessionKey: string; at: number; paths: string[] };
  private hostMountsCache?: { at: number; mounts: HostMount[] };

  constructor(
    readonly settings: LocalSandboxSettings = DEFAULT_SANDBOX_SETTINGS,
    processCaps?: SessionProcessCaps,
  ) {
    this.processCaps = processCaps ?? new SessionProcessCaps(settings.maxProcesses);
  }

  /** Whether the sandbox can start here; asked once per worker (a real bwrap run). */
  state(): SandboxState {
    this.probed ??= this.probe();
    return this.probed;
  }

  /**
   * The program to spawn for `bash -c script` inside the sandbox (or bare, when the sandbox is
   * off). Limits are set inside, after bwrap made the user namespace, so they count only the
   * sandbox's own processes.
   */
  command(script: string, options: SandboxRunOptions): SandboxCommand {
    const state = this.state();
    if (!state.active) {
      if (state.unavailableReason) throw new Error(state.unavailableReason);
      return { file: trustedProgram('bash', { outside: [options.workspace] }), args: ['-c', script] };
    }
    const launcherArgs: string[] = [];
    const seccomp = this.seccompPath();
    const bwrapArgs = this.bwrapArguments(options, seccomp !== undefined);
    // First of all, inside: the mounts are checked against the plan before the command runs.
    const audit = mountAuditScript(bwrapArgs, realOrSelf(options.workspace), this.cachedHostMounts());
    const inner = [audit, this.limitsPrologue(), script].filter((part) => part !== undefined).join('\n');
    const cgroup = this.processCaps.procsFile(options.sessionKey);
    // The launcher runs outside the sandbox (as root, it may be): its own lookups and bwrap's use
    // the trusted PATH; bwrap gives the command the user's PATH back (see bwrapArguments).
    const outside = { outside: [options.workspace] };
    const launcher = [
      `PATH=${shellQuote(trustedSearchPath(outside))}; export PATH`,
      seccomp ? 'exec 3< "$1" || exit 125' : '',
      // Joining the cgroup before bwrap forks puts every later process under its pids.max.
      cgroup ? JOIN_SESSION_GROUP : '',
      'shift 3',
      'exec "$@"',
    ]
      .filter(Boolean)
      .join('\n');
    launcherArgs.push('-c', launcher, 'hermes-sandbox', seccomp ?? '', cgroup ?? '', String(this.settings.maxProcesses));
    return {
      file: '/bin/sh',
      args: [...launcherArgs, this.bwrap(outside), ...bwrapArgs, 'bash', '-c', inner],
    };
  }

  /** `command` as one line of shell text (the background runner starts it this way). */
  shellWords(script: string, options: SandboxRunOptions): string {
    const { file, args } = this.command(script, options);
    return [file, ...args].map(shellQuote).join(' ');
  }

  /**
   * What a command of this workspace cannot see, as a test of a real path: what the sandbox hides
   * (secrets, the runtime's files, `hidden_paths`) and the host's folders it replaces with its own
   * (temporary folders, /run, /var/tmp, /dev, other processes in /proc). File tools run in the
   * worker; the gate asks a person before they read there, so they get unasked what commands get.
   * `sessionKey`: whose commands (another live session's workspace inside this one is hidden;
   * without one, every live session's is).
   */
  hiddenFromCommands(workspace: string, sessionKey = ''): (target: string) => boolean {
    const root = realOrSelf(workspace);
    const cached = this.hiddenCache;
    const fresh = cached && cached.workspace === root && cached.sessionKey === sessionKey && Date.now() - cached.at < HIDDEN_PATHS_TTL_MS;
    const hidden = fresh ? cached.paths : this.hiddenPaths(root, sessionKey).map((entry) => entry.path);
    this.hiddenCache = { workspace: root, sessionKey, at: Date.now(), paths: hidden };
    const replaced = [...privateTemporaryDirectories(), ...PRIVATE_DIRECTORIES.map(realOrSelf), '/dev'];
    // A search asks this of every file it walks: a prefix test, not path.relative.
    const within = (folders: readonly string[]) => {
      const prefixes = folders.map((folder) => (folder.endsWith('/') ? folder : `${folder}/`));
      return (target: string) => folders.includes(target) || prefixes.some((prefix) => target.startsWith(prefix));
    };
    const inHidden = within(hidden);
    const inWorkspace = within([root]);
    const inReplaced = within(replaced);
    return (target) => inHidden(target) || (!inWorkspace(target) && (HOST_PROCESS.test(target) || inReplaced(target)));
  }

  /** Removes this session's process group when nothing runs in it (best effort). */
  releaseSession(sessionKey: string): void {
    this.processCaps.release(sessionKey);
  }

  /** The worker's mounts, read again when older than the hidden paths may be. */
  private cachedHostMounts(): HostMount[] {
    const cached = this.hostMountsCache;
    if (cached && Date.now() - cached.at < HIDDEN_PATHS_TTL_MS) return cached.mounts;
    const mounts = hostMounts();
    this.hostMountsCache = { at: Date.now(), mounts };
    return mounts;
  }

  /** A configured path as given; else bwrap from the trusted PATH, never one the workspace holds. */
  private bwrap(lookup: TrustedLookup = {}): string {
    return trustedProgram(this.settings.bwrapPath ?? 'bwrap', lookup);
  }

  private limitsPrologue(): string {
    const { maxProcesses, maxMemoryMb, maxFileSizeMb } = this.settings;
    // Each limit on its own: one a kernel refuses must not cancel the others.
    return [
      `ulimit -u ${maxProcesses} 2>/dev/null`,
      `ulimit -v ${maxMemoryMb * 1024} 2>/dev/null`,
      `ulimit -f ${maxFileSizeMb * 1024} 2>/dev/null`,
      'ulimit -c 0 2>/dev/null',
      CLOSE_INHERITED_DESCRIPTORS,
    ].join('; ');
  }

  private bwrapArguments(options: SandboxRunOptions, withSeccomp: boolean): string[] {
    const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];
    args.push('--unshare-user', '--disable-userns', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try');
    if (this.settings.network === 'none') args.push('--unshare-net');
    args.push('--cap-drop', 'ALL', '--hostname', 'hermes-sandbox');
    // Inside, the user's PATH (the launcher's own is the trusted one): lookups there are contained.
    const innerPath = options.path ?? process.env.PATH;
    if (innerPath !== undefined) args.push('--setenv', 'PATH', innerPath);
    // Foreground commands die with the worker; a background runner is their parent instead.
    args.push('--die-with-parent');
    if (withSeccomp) args.push('--seccomp', '3');
    const workspace = realOrSelf(options.workspace);
    const view = this.cachedView(workspace, innerPath, options.readPaths ?? [], options.sessionKey);
    // First the data folders, emptied: what the sandbox shows in them is bound back (the private
    // temporary folders and the workspace below may lie in one; bwrap makes their mount points).
    args.push(...view.mounts.hide);
    const size = String(this.settings.tmpSizeMb * 1024 * 1024);
    for (const directory of privateTemporaryDirectories()) args.push('--size', size, '--tmpfs', directory);
    for (const directory of new Set(PRIVATE_DIRECTORIES.map(realOrSelf))) {
      if (isDirectory(directory) && !privateTemporaryDirectories().includes(directory)) args.push('--tmpfs', directory, '--remount-ro', directory);
    }
    // A workspace of `/` would make everything writable: it stays read-only then.
    if (workspace !== '/' && isDirectory(workspace)) args.push('--bind', workspace, workspace);
    for (const file of options.wrapperFiles ?? []) args.push('--bind', file, file);
    const hiddenPaths = view.hidden;
    // What is hidden deep in the workspace stays where it is hidden: the folders above it are
    // mount points, which a command cannot rename or remove (after `mv config cfg`, the next
    // command would find cfg/master.key where nothing hides it).
    if (workspace !== '/') for (const folder of foldersAbove(hiddenPaths, workspace)) args.push('--bind', folder, folder);
    const hide = (hidden: { path: string; directory: boolean }) =>
      hidden.directory ? ['--tmpfs', hidden.path, '--remount-ro', hidden.path] : ['--ro-bind', '/dev/null', hidden.path];
    for (const hidden of hiddenPaths) args.push(...hide(hidden));
    // A workspace inside a hidden folder stays the one thing of it that shows.
    const hiddenAround = hiddenPaths.some((hidden) => hidden.directory && isWithin(workspace, hidden.path));
    if (workspace !== '/' && hiddenAround) args.push('--bind', workspace, workspace);
    // Last, over the writable workspace: what git runs for the user later, outside any sandbox.
    if (workspace !== '/' && isDirectory(workspace)) {
      // A repository inside a hidden folder (another live session's project) is out of reach: no guard mounts there.
      const reachable = workTreesOf(workspace, options.nestedRepositories).filter(
        (workTree) => workTree === workspace || !hiddenPaths.some((hidden) => hidden.directory && isWithin(workTree, hidden.path)),
      );
      const guard = gitGuardArguments(workspace, reachable);
      args.push(...guard);
      // A guard mount over or around a hidden file (a repository's config made a link to the
      // workspace's .npmrc) would show it again: what it covers is hidden once more after it.
      for (const hidden of hiddenUnder(hiddenPaths, bwrapMounts(guard).map((mount) => mount.target), workspace)) args.push(...hide(hidden));
    }
    // Read-only only now: until then bwrap makes the mount points of what shows in them.
    args.push(...view.mounts.seal);
    // A cwd the sandbox does not show (another folder under the host's /tmp) falls back to the
    // workspace; the wrapper's own `cd` then reports it the way it does without a sandbox.
    const realCwd = realOrSelf(options.cwd);
    const hiddenCwd =
      privateTemporaryDirectories().some((directory) => isWithin(options.cwd, directory)) ||
      !isShownInSandbox(realCwd, view.scope) ||
      view.mounts.absent.some((entry) => isWithin(realCwd, entry));
    const visible = !hiddenCwd || isWithin(options.cwd, workspace);
    args.push('--chdir', visible && isDirectory(options.cwd) ? options.cwd : workspace);
    return args;
  }

  private cachedView(workspace: string, searchPath: string | undefined, readPaths: readonly string[], sessionKey: string): SandboxView {
    const key = [process.env.HOME ?? '', os.homedir(), workspace, sessionKey, searchPath ?? '', ...readPaths].join('\0');
    const cached = this.viewCache;
    if (cached && cached.key === key && Date.now() - cached.at < HIDDEN_PATHS_TTL_MS) return cached.view;
    const scope = recentReadScope({ workspace, searchPath, readPaths: [...(this.settings.readPaths ?? []), ...readPaths] });
    // A data root inside a private temporary folder is gone with it (and its mount would fail).
    const replaced = [...privateTemporaryDirectories(), ...PRIVATE_DIRECTORIES.map(realOrSelf)];
    const dataRoots = scope.dataRoots.filter((folder) => !replaced.some((directory) => isWithin(folder, directory)));
    const mounts = readScopeMounts(
      { ...scope, dataRoots },
      { skipHomeEntries: TOP_LEVEL_HIDDEN_HOME_ENTRIES, mountedElsewhere: [workspace, ...replaced], emptyFolder: this.emptyFolder() },
    );
    // What the scope already hides, or left out of a home, needs no mount of its own.
    const hidden = this.hiddenPaths(workspace, sessionKey).filter(
      (entry) => (isShownInSandbox(entry.path, scope) || isWithin(workspace, entry.path)) && !mounts.absent.some((absent) => isWithin(entry.path, absent)),
    );
    const view = { scope, mounts, hidden };
    this.viewCache = { key, at: Date.now(), view };
    return view;
  }

  /**
   * Everything to hide that exists on this machine and is visible in the sandbox, resolved (a
   * symlink's target is hidden, so both names are).
   */
  private hiddenPaths(workspace: string, sessionKey: string): { path: string; directory: boolean }[] {
    // HOME as commands get it too: an embedder (Jest is one) may change it without os.homedir() seeing.
    const homes = new Set([process.env.HOME, os.homedir(), safeUserHome(), '/root'].filter((home): home is string => Boolean(home)));
    // The worker's files in the host's temporary folder (every session's process files, saved
    // output, the seccomp filter) lie under the private one, unless the workspace shows them.
    const runtimeTemporary = isWithin(realOrSelf(os.tmpdir()), workspace) ? runtimeTemporaryFolders() : [];
    if (runtimeTemporary.length) ensureRuntimeTemporaryFolders();
    const candidates = [
      ...runtimeTemporary,
      // Another live session's workspace inside this one (a workspace of `/tmp` holds every
      // temporary one): its files are that session's work, not this one's to read or change.
      ...otherLiveWorkspacesWithin(workspace, sessionKey),
      ...[...homes].flatMap((home) => HIDDEN_HOME_ENTRIES.map((entry) => path.join(home, entry))),
      ...HIDDEN_SYSTEM_PATHS,
      ...sshHostKeys(),
      ...this.settings.runtimePaths.flatMap((file) => SQLITE_COMPANIONS.map((suffix) => `${file}${suffix}`)),
      ...(this.settings.workspaceHiddenNames ?? []).map((name) => path.join(workspace, name)),
      ...this.settings.hiddenPaths.map((entry) => (entry.startsWith('~/') ? path.join(os.homedir(), entry.slice(2)) : entry)),
    ];
    const found: { path: string; directory: boolean }[] = [];
    for (const candidate of candidates) {
      try {
        const real = realpathSync(candidate);
        found.push({ path: real, directory: statSync(real).isDirectory() });
      } catch {
        // Not on this machine: nothing to hide.
      }
    }
    // Already empty in the sandbox (a private tmpfs covers them), unless the workspace shows them.
    const covered = [...privateTemporaryDirectories(), ...PRIVATE_DIRECTORIES.map(realOrSelf)];
    const hidden: { path: string; directory: boolean }[] = [];
    // Parents first: whatever lies inside a hidden folder is hidden with it.
    for (const entry of found.sort((a, b) => a.path.length - b.path.length)) {
      if (entry.path === '/' || hidden.some((parent) => isWithin(entry.path, parent.path))) continue;
      if (covered.some((directory) => isWithin(entry.path, directory)) && !isWithin(entry.path, workspace)) continue;
      hidden.push(entry);
    }
    return hidden;
  }

  /** An empty folder of this worker's user, bound read-only over data folders nothing shows in. */
  private emptyFolder(): string | undefined {
    if (this.emptyDirectory === undefined) {
      try {
        const directory = path.join(sandboxFilesDirectory(), 'empty');
        mkdirSync(directory, { recursive: true, mode: 0o500 });
        // Someone (this user, outside) may have put something there: then it is not used.
        this.emptyDirectory = readdirSync(directory).length === 0 ? directory : null;
      } catch {
        this.emptyDirectory = null;
      }
    }
    return this.emptyDirectory ?? undefined;
  }

  /** The seccomp program, written once per worker; undefined where no filter is known. */
  private seccompPath(): string | undefined {
    if (this.seccompFile === undefined) {
      const filter = unixSocketFilter();
      if (!filter) {
        this.seccompFile = null;
      } else {
        const directory = sandboxFilesDirectory();
        // One name for every worker (the content only depends on the architecture), replaced
        // atomically so a runner starting meanwhile never reads half a file.
        const file = path.join(directory, `unix-socket-filter-${os.arch()}.bpf`);
        const temporary = `${file}.${process.pid}.tmp`;
        writeFileSync(temporary, filter, { mode: 0o600 });
        renameSync(temporary, file);
        this.seccompFile = file;
      }
    }
    return this.seccompFile ?? undefined;
  }

  private probe(): SandboxState {
    const { mode, network } = this.settings;
    if (mode === 'off') {
      const warning = 'terminal.local.sandbox is off: local commands run unsandboxed, with the worker user\'s full rights';
      return { active: false, summary: `sandbox: off (${warning})`, warning };
    }
    const reason = this.bwrapUnavailableReason();
    if (reason) {
      const unavailableReason = `${reason}; local commands cannot run sandboxed (set terminal.local.sandbox: off to run them unsandboxed)`;
      return { active: false, unavailableReason, summary: `sandbox: unavailable (${unavailableReason})`, warning: unavailableReason };
    }
    const caps = [
      `network ${network}`,
      `${this.settings.maxProcesses} processes`,
      `${this.settings.maxMemoryMb} MiB per process`,
      `/tmp ${this.settings.tmpSizeMb} MiB`,
      unixSocketFilter() ? 'no Unix sockets' : 'Unix sockets NOT filtered on this architecture',
    ];
    const summary = `sandbox: bubblewrap (${caps.join(', ')})`;
    if (network !== 'host') return { active: true, summary };
    // Said at start-up: with the machine's network a command reaches the unauthenticated server.
    const warning = 'terminal.local.network is host: sandboxed commands share this machine\'s network, its loopback included (the Temporal server, the Web UI, local databases)';
    return { active: true, summary, warning };
  }

  /** Why the configured (or trusted) bwrap cannot make a sandbox here, or undefined when it can. */
  private bwrapUnavailableReason(): string | undefined {
    let bwrap: string;
    try {
      bwrap = this.bwrap();
    } catch (error) {
      return `bubblewrap (bwrap) is not installed where the worker looks: ${(error as Error).message}`;
    }
    return sandboxUnavailableReason(bwrap);
  }
}

/** Why bwrap cannot make a sandbox here, or undefined when it can (a real, tiny run). */
export function sandboxUnavailableReason(bwrap = 'bwrap'): string | undefined {
  if (process.platform !== 'linux') return `no sandbox on ${process.platform} (bubblewrap needs Linux)`;
  const result = spawnSync(
    bwrap,
    ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-user', '--disable-userns', '--unshare-pid', '--unshare-net', '--cap-drop', 'ALL', '--die-with-parent', 'true'],
    // Its `true` comes from the trusted PATH too: a planted one would print into the reason.
    { encoding: 'utf8', timeout: 10_000, env: { PATH: trustedSearchPath() } },
  );
  if (result.error) {
    const code = (result.error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? `bubblewrap (${bwrap}) is not installed` : `bubblewrap could not run: ${result.error.message}`;
  }
  if (result.status !== 0) return `bubblewrap cannot create a sandbox here (user namespaces unavailable?): ${result.stderr.trim() || `exit ${result.status}`}`;
  return undefined;
}

/** The worker's own files for its sandboxes. One folder per user: another user's of that name would not be ours to write. */
function sandboxFilesDirectory(): string {
  const directory = path.join(os.tmpdir(), sandboxFilesFolderName());
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  return directory;
}

/**
 * The hidden paths inside the workspace (where the guard mounts) that a mount at one of these
 * points would cover (it lies on or above them) or sits in. One holding the workspace is not
 * hidden again: that would hide the workspace.
 */
function hiddenUnder<T extends { path: string }>(hidden: readonly T[], points: readonly string[], workspace: string): T[] {
  return hidden.filter(
    (entry) => entry.path !== workspace && isWithin(entry.path, workspace) && points.some((point) => isWithin(entry.path, point) || isWithin(point, entry.path)),
  );
}

/** The folders between `workspace` and the hidden entries inside it, parents first. */
function foldersAbove(hidden: readonly { path: string }[], workspace: string): string[] {
  const folders = new Set<string>();
  for (const entry of hidden) {
    if (!isWithin(entry.path, workspace)) continue;
    for (let folder = path.dirname(entry.path); folder !== workspace && isWithin(folder, workspace); folder = path.dirname(folder)) folders.add(folder);
  }
  return [...folders].sort((a, b) => a.length - b.length);
}

function privateTemporaryDirectories(): string[] {
  return [...new Set(['/tmp', realOrSelf(os.tmpdir())])];
}

function sshHostKeys(): string[] {
  try {
    return readdirSync('/etc/ssh')
      .filter((name) => /^ssh_host_.*_key$/.test(name))
      .map((name) => path.join('/etc/ssh', name));
  } catch {
    return [];
  }
}

function safeUserHome(): string | undefined {
  try {
    return os.userInfo().homedir;
  } catch {
    return undefined;
  }
}


