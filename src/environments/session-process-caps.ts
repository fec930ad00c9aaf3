// The local sandbox's process cap as root: a pids cgroup per session (the kernel exempts uid 0
// from RLIMIT_NPROC). A group is made at a session's first command on this worker and removed
// once the session has run nothing here for a while, so a long-lived worker does not keep one
// group for every session it ever ran. A launcher that finds its group gone (removed by another
// worker's sweep, say) makes it again: see JOIN_SESSION_GROUP.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { trustedProgram } from './trusted-programs';

export const SESSION_GROUPS_ROOT = '/sys/fs/cgroup/pids/hermes-temporal';

/** How long a session's group stays after its last command started here. */
export const IDLE_RELEASE_MS = 60_000;
/** A group released while its last processes were still exiting (a killed command) is tried again this soon. */
const BUSY_RETRY_MS = 1000;
/** At shutdown, how long to wait for such processes, in checks 100 ms apart. */
const SHUTDOWN_CHECKS = 10;

/**
 * Shell text for the sandbox's launcher: joins the group whose cgroup.procs is "$2", making it
 * with pids.max "$3" first when it is gone. Best effort, as before: a machine without the pids
 * hierarchy still runs the command, under the ulimit alone. (stderr goes first: a failed redirection
 * must not print into the command's output.)
 */
export const JOIN_SESSION_GROUP =
  'echo $$ 2>/dev/null >"$2" || { mkdir "${2%/*}" 2>/dev/null; echo "$3" 2>/dev/null >"${2%/*}/pids.max"; echo $$ 2>/dev/null >"$2"; }';

/** Tries `rmdir` on each folder every 200 ms for 15 s at most, detached from this process. */
function removeWhenEmpty(directories: string[]): void {
  const script = 'for i in $(seq 75); do rmdir -- "$@" 2>/dev/null; for d in "$@"; do [ -d "$d" ] && break; done; [ -d "$d" ] || exit 0; sleep 0.2; done';
  try {
    spawn(trustedProgram('sh'), ['-c', script, 'hermes-release-groups', ...directories], { detached: true, stdio: 'ignore' }).unref();
  } catch {
    // The next worker's sweep removes empty groups left behind.
  }
}

/**
 * For a process about to exit: the groups of a session and its sub-agents (`<key>`, `<key>-sa<n>`
 * at any depth) go to a short-lived process of their own that removes each once it empties.
 */
export function removeSessionGroupsWhenEmpty(sessionKey: string, root = SESSION_GROUPS_ROOT): void {
  const family = new RegExp(`^${sessionKey.replace(/[^A-Za-z0-9_-]/g, '_')}(-sa\\d+)*$`);
  let names: string[];
  try {
    names = readdirSync(root).filter((name) => family.test(name));
  } catch {
    return;
  }
  if (names.length) removeWhenEmpty(names.map((name) => path.join(root, name)));
}

export class SessionProcessCaps {
  private usable?: boolean;
  private swept = false;
  /** The sessions whose group this worker made, each with the timer that removes it when idle. */
  private readonly idleTimers = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly maxProcesses: number,
    private readonly idleMs = IDLE_RELEASE_MS,
    private readonly root = SESSION_GROUPS_ROOT,
  ) {}

  /** The cgroup.procs file a command of `sessionKey` joins; undefined where no group can be made. */
  procsFile(sessionKey: string): string | undefined {
    if (process.getuid?.() !== 0 || this.usable === false) return undefined;
    const directory = this.directoryOf(sessionKey);
    try {
      // Groups left by workers that died (or by versions that never removed them): the empty ones go.
      if (!this.swept) this.sweepEmpty();
      if (!this.idleTimers.has(sessionKey) || !existsSync(directory)) {
        mkdirSync(directory, { recursive: true });
        writeFileSync(path.join(directory, 'pids.max'), String(this.maxProcesses));
      }
      this.usable = true;
    } catch {
      this.usable = false;
      return undefined;
    }
    this.keepFor(sessionKey);
    return path.join(directory, 'cgroup.procs');
  }

  /** Removes `sessionKey`'s group now; while something still runs in it, as soon as nothing does. */
  release(sessionKey: string): void {
    if (this.remove(sessionKey) === 'busy') this.schedule(sessionKey, BUSY_RETRY_MS);
    else this.forget(sessionKey);
  }

  /** Worker shutdown: removes every group this worker made, waiting briefly for processes still exiting. */
  async releaseAll(): Promise<void> {
    let busy = this.held();
    for (let check = 0; busy.length && check < SHUTDOWN_CHECKS; check++) {
      if (check) await new Promise((resolve) => setTimeout(resolve, 100));
      busy = busy.filter((sessionKey) => this.remove(sessionKey) === 'busy');
    }
    // On a loaded machine killed commands can take longer to leave: a short-lived process of its
    // own removes their groups once they have, as this one is about to exit.
    if (busy.length) removeWhenEmpty(busy.map((sessionKey) => this.directoryOf(sessionKey)));
    for (const sessionKey of this.held()) this.forget(sessionKey);
  }

  /** The sessions whose group this worker holds. */
  held(): string[] {
    return [...this.idleTimers.keys()];
  }

  directoryOf(sessionKey: string): string {
    return path.join(this.root, sessionKey.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 200) || 'default');
  }

  /** Restarts the session's countdown (a command is starting); a command that outlives it keeps the group busy. */
  private keepFor(sessionKey: string): void {
    const timer = this.idleTimers.get(sessionKey);
    if (timer) timer.refresh();
    else this.schedule(sessionKey, this.idleMs);
  }

  private schedule(sessionKey: string, delayMs: number): void {
    clearTimeout(this.idleTimers.get(sessionKey));
    const timer = setTimeout(() => {
      // rmdir fails while a process (a background command, a long one) is in the group: look again later.
      if (this.remove(sessionKey) === 'busy') this.schedule(sessionKey, this.idleMs);
      else this.idleTimers.delete(sessionKey);
    }, delayMs);
    timer.unref();
    this.idleTimers.set(sessionKey, timer);
  }

  private forget(sessionKey: string): void {
    clearTimeout(this.idleTimers.get(sessionKey));
    this.idleTimers.delete(sessionKey);
  }

  private remove(sessionKey: string): 'removed' | 'busy' | 'gone' {
    try {
      rmdirSync(this.directoryOf(sessionKey));
      return 'removed';
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'EBUSY' ? 'busy' : 'gone';
    }
  }

  private sweepEmpty(): void {
    this.swept = true;
    let names: string[];
    try {
      names = readdirSync(this.root);
    } catch {
      return;
    }
    for (const name of names) {
      try {
        rmdirSync(path.join(this.root, name));
      } catch {
        // In use: a session running now, here or on another worker.
      }
    }
  }
}
