// The process groups of the commands this process is running, so that a process about to exit
// at once (a second Ctrl+C on `run`) can kill them instead of leaving them orphaned.
const runningGroups = new Set<number>();

/** Records a command's process group until `exited` settles. */
export function trackCommandGroup(pid: number | undefined, exited: Promise<unknown>): void {
  if (!pid) return;
  runningGroups.add(pid);
  const forget = () => runningGroups.delete(pid);
  exited.then(forget, forget);
}

/** SIGKILLs every command group still running; synchronous, so it is safe right before exit. */
export function killRunningCommands(): number {
  let killed = 0;
  for (const pid of runningGroups) {
    try {
      process.kill(-pid, 'SIGKILL');
      killed += 1;
    } catch {
      // Already gone.
    }
  }
  runningGroups.clear();
  return killed;
}
