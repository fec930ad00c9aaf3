// bwrap mounts by path. Between the worker's look at a folder in the workspace and bwrap's mount
// of it, a command still running (a background loop of the agent's) can swap that folder, or one
// above it, for a link, and bwrap follows the link: a guard's writable mount of a repository
// folder would show the home instead, or a read-only mount of hooks land elsewhere and leave them
// writable. Mounts, once made, no longer follow any path, so before anything of the command runs
// its shell compares the mounts inside the workspace with the plan, in /proc/self/mountinfo:
// at each planned mount point the same mounts, in order, each of the folder or file the worker
// meant (its root there). A difference stops the command.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isWithin, realOrSelf } from './path-within';
import { shellQuote } from './shell-quote';

/** Exit status of a command stopped because its mounts were not the planned ones. */
export const MOUNTS_CHANGED_STATUS = 125;

export interface HostMount {
  /** The mounted folder's path inside its file system (mountinfo's fourth field). */
  root: string;
  mountPoint: string;
}

/** Arguments each bwrap option takes: every option these sandboxes use, so none is misread. */
const OPTION_ARITY: Record<string, number> = {
  '--bind': 2,
  '--ro-bind': 2,
  '--dev-bind': 2,
  '--bind-try': 2,
  '--ro-bind-try': 2,
  '--dev-bind-try': 2,
  '--tmpfs': 1,
  '--dev': 1,
  '--proc': 1,
  '--mqueue': 1,
  '--dir': 1,
  '--remount-ro': 1,
  '--size': 1,
  '--perms': 1,
  '--chmod': 2,
  '--symlink': 2,
  '--file': 2,
  '--bind-data': 2,
  '--ro-bind-data': 2,
  '--setenv': 2,
  '--unsetenv': 1,
  '--chdir': 1,
  '--hostname': 1,
  '--cap-drop': 1,
  '--cap-add': 1,
  '--seccomp': 1,
  '--add-seccomp-fd': 1,
  '--uid': 1,
  '--gid': 1,
};
const BINDS = new Set(['--bind', '--ro-bind', '--dev-bind', '--bind-try', '--ro-bind-try', '--dev-bind-try']);
/** Mounts of a new file system, whose root is its own `/`. */
const FRESH_MOUNTS = new Set(['--tmpfs', '--proc', '--dev', '--mqueue']);

/** The worker's mounts, as mountinfo lists them (unescaped). */
export function hostMounts(mountinfo = readFileSync('/proc/self/mountinfo', 'utf8')): HostMount[] {
  return mountinfo
    .split('\n')
    .map((line) => line.split(' '))
    .filter((fields) => fields.length > 5)
    .map((fields) => ({ root: unescapeField(fields[3] ?? ''), mountPoint: unescapeField(fields[4] ?? '') }));
}

/**
 * The bash that exits MOUNTS_CHANGED_STATUS unless each mount point these bwrap arguments plan
 * inside `workspace` holds the planned mounts, in order, or undefined when they plan none there.
 * A mount bwrap was led elsewhere is missing from its point, one of the wrong folder shows another
 * root there. Mount points the host itself has in the workspace are left alone (bwrap copies them,
 * no command can move them, and the host may add some meanwhile, as Docker does for containers).
 */
export function mountAuditScript(bwrapArgs: readonly string[], workspace: string, mounts: readonly HostMount[]): string | undefined {
  if (workspace === '/') return undefined;
  const hostPoints = new Set(mounts.filter((mount) => isWithin(mount.mountPoint, workspace)).map((mount) => escapeField(mount.mountPoint)));
  const planned = new Map<string, string>();
  for (const { mountPoint, root } of plannedMounts(bwrapArgs, mounts, workspace)) {
    if (!isWithin(mountPoint, workspace)) continue;
    const point = escapeField(mountPoint);
    if (!hostPoints.has(point)) planned.set(point, `${planned.get(point) ?? ''}${escapeField(root)} `);
  }
  if (!planned.size) return undefined;
  const entries = [...planned].map(([point, roots]) => `[${shellQuote(point)}]=${shellQuote(roots)}`).join(' ');
  return [
    `declare -A hermes_want=(${entries}) hermes_seen=()`,
    `hermes_ws=${shellQuote(escapeField(workspace))}`,
    // At once, then field by field: `read` takes a /proc file a byte at a time (11 ms, not 0.3).
    'mapfile -t hermes_lines < /proc/self/mountinfo',
    'for hermes_line in "${hermes_lines[@]}"; do',
    '  [[ $hermes_line == *" $hermes_ws"[/\\ ]* ]] || continue',
    '  hermes_line=${hermes_line#* * * }; hermes_root=${hermes_line%% *}; hermes_line=${hermes_line#* }; hermes_point=${hermes_line%% *}',
    '  [[ -z ${hermes_want[$hermes_point]+x} ]] || hermes_seen[$hermes_point]+="$hermes_root "',
    'done',
    'hermes_same=1',
    'for hermes_point in "${!hermes_want[@]}"; do [[ "${hermes_seen[$hermes_point]-}" == "${hermes_want[$hermes_point]}" ]] || hermes_same=0; done',
    `if (( ! hermes_same )); then echo 'hermes-sandbox: a folder of the workspace the sandbox mounts was replaced while the command started (a link swapped in); nothing ran: run it again' >&2; exit ${MOUNTS_CHANGED_STATUS}; fi`,
    'unset hermes_want hermes_seen hermes_ws hermes_lines hermes_line hermes_root hermes_point hermes_same',
  ].join('\n');
}

/** A mount bwrap arguments make: a bind of `source`, or a fresh file system, at `target`. */
export interface BwrapMount {
  source?: string;
  target: string;
}

/** The mounts in these bwrap arguments, in order (read with every option's arity, so none is misread). */
export function bwrapMounts(args: readonly string[]): BwrapMount[] {
  const found: BwrapMount[] = [];
  for (let index = 0; index < args.length; index += 1) {
    const option = args[index] ?? '';
    if (!option.startsWith('--')) break; // the command itself
    if (BINDS.has(option)) found.push({ source: args[index + 1] ?? '', target: args[index + 2] ?? '' });
    else if (FRESH_MOUNTS.has(option)) found.push({ target: args[index + 1] ?? '' });
    const arity = OPTION_ARITY[option];
    if (arity === undefined && !/^--(unshare-|share-|die-with-parent|new-session|disable-userns|as-pid-1|clearenv)/.test(option)) {
      throw new Error(`bwrapMounts does not know the bwrap option ${option}`);
    }
    index += arity ?? 0;
  }
  return found;
}

/**
 * The mounts the arguments make at or below the workspace, in order, with the root mountinfo will
 * show for each. What lands elsewhere is of no concern here: only the workspace is the agent's to swap.
 */
function plannedMounts(args: readonly string[], mounts: readonly HostMount[], workspace: string): HostMount[] {
  const planned: HostMount[] = [];
  // Only mounts in the workspace (their copies of the host's own mounts there are left alone).
  for (const { source: asked, target } of bwrapMounts(args)) {
    if (!isWithin(target, workspace)) continue;
    const mountPoint = realOrSelf(target);
    if (asked === undefined) {
      planned.push({ mountPoint, root: '/' });
      continue;
    }
    const source = realOrSelf(asked);
    planned.push({ mountPoint, root: rootOf(source, mounts) });
    // A bind takes the mounts below its source with it.
    for (const below of mounts) {
      if (below.mountPoint !== source && isWithin(below.mountPoint, source)) {
        planned.push({ mountPoint: path.join(mountPoint, path.relative(source, below.mountPoint)), root: below.root });
      }
    }
  }
  return planned;
}

/** The root mountinfo shows for a bind of `source`: its path inside the file system it lies on. */
function rootOf(source: string, mounts: readonly HostMount[]): string {
  let best: HostMount | undefined;
  for (const mount of mounts) {
    // The last of equally deep mounts is the one on top.
    if (isWithin(source, mount.mountPoint) && (!best || mount.mountPoint.length >= best.mountPoint.length)) best = mount;
  }
  if (!best) return source;
  return path.join(best.root, path.relative(best.mountPoint, source));
}

/** mountinfo writes a space, tab, line feed and backslash as an octal escape. */
function escapeField(text: string): string {
  return text.replace(/[ \t\n\\]/g, (character) => `\\${character.charCodeAt(0).toString(8).padStart(3, '0')}`);
}

function unescapeField(text: string): string {
  return text.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}
