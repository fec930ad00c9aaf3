// Shell text that ends what a session left running in the background: shared by the backends
// whose background processes are files in the environment (ExecBackgroundProcesses).
import { shellQuote } from '../shell-quote';

/**
 * `alive G`: whether process group G still has a live member. Zombies do not count: where the
 * host's init does not reap orphans they linger, but they run nothing.
 */
export const GROUP_ALIVE = [
  'alive() {',
  '  if command -v ps >/dev/null 2>&1; then',
  '    ps -eo pgid=,stat= 2>/dev/null | awk -v g="$1" \'$1 == g && $2 !~ /^Z/ { found = 1 } END { exit !found }\'',
  '  else',
  '    kill -0 -- "-$1" 2>/dev/null',
  '  fi',
  '}',
].join('\n');

/**
 * Stops every background process a session left in `stateDir` that still runs: TERM to each
 * process group, up to `graceSeconds`, then KILL; then removes the directory. A group is signalled
 * only while its leader is still that process's runner (its command line names the process's
 * files): a pid file outlives its process, and pids get reused.
 */
export function stopSessionProcessesScript(stateDir: string, graceSeconds: number): string {
  const dir = shellQuote(stateDir);
  const ticks = Math.max(1, Math.round(graceSeconds * 10));
  return [
    GROUP_ALIVE,
    `[ -d ${dir} ] || exit 0`,
    'pgids=',
    `for f in ${dir}/*.pid; do`,
    '  [ -f "$f" ] || continue',
    '  b="${f%.pid}"',
    '  [ -f "$b.exit" ] && continue',
    '  p=$(cat "$f" 2>/dev/null)',
    '  case "$p" in ""|*[!0-9]*) continue;; esac',
    `  a=$(tr '\\0' ' ' < /proc/$p/cmdline 2>/dev/null || ps -ww -o args= -p "$p" 2>/dev/null)`,
    '  case "$a" in *"$b"*) pgids="$pgids $p";; esac',
    'done',
    'for p in $pgids; do kill -TERM -- "-$p" 2>/dev/null; done',
    `i=0; while [ $i -lt ${ticks} ]; do left=; for p in $pgids; do alive "$p" && left=1; done; [ -n "$left" ] || break; sleep 0.1; i=$((i+1)); done`,
    'for p in $pgids; do kill -KILL -- "-$p" 2>/dev/null; done',
    `rm -rf -- ${dir}`,
  ].join('\n');
}
