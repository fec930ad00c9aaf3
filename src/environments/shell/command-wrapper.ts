// The script that runs one command inside a sandbox: in its own process group (so a timeout can
// kill the whole tree through a pidfile), from the requested cwd, with stderr folded into stdout, and ending
// with a marker line that reports where the command left the cwd (so a `cd` persists).
import { shellQuote } from '../shell-quote';

/** Appears in every inner script, so a pid from a stale pidfile can be recognised as ours. */
export const INNER_MARKER = '__hermes_exit';

export interface WrapOptions {
  command: string;
  cwd: string;
  /** Where the command's process-group id is written while it runs. */
  pidFile: string;
  /** Per-command nonce printed before the final cwd; never shown to the model. */
  cwdMarker: string;
}

export function wrapCommand({ command, cwd, pidFile, cwdMarker }: WrapOptions): string {
  const pid = shellQuote(pidFile);
  const inner = [
    `echo $$ > ${pid}`,
    // A kill that arrived before the pidfile existed leaves a note: honour it.
    `[ -e ${shellQuote(`${pidFile}.cancel`)} ] && exit 130`,
    `builtin cd -- ${shellQuote(cwd)} || exit 126`,
    `eval ${shellQuote(command)}`,
    `${INNER_MARKER}=$?`,
    `printf '\\n%s%s\\n' ${shellQuote(cwdMarker)} "$(builtin pwd -P)"`,
    `exit $${INNER_MARKER}`,
  ].join('\n');
  return [
    // The outer shell's own messages (job status) are not output; the command's stderr is.
    'exec 2>/dev/null </dev/null',
    `mkdir -p -- ${shellQuote(dirOf(pidFile))}`,
    // Job control gives the command its own process group (pid = pgid): `kill -- -PGID` then
    // reaches everything it started, while this shell survives to clean up.
    'set -m',
    `bash -c ${shellQuote(inner)} 2>&1`,
    '__hermes_status=$?',
    `rm -f -- ${pid} ${shellQuote(`${pidFile}.cancel`)}`,
    'exit $__hermes_status',
  ].join('\n');
}

/**
 * Stops the command that `pidFile` names: TERM to its process group, KILL after the grace period.
 * When the command has not written its pidfile yet, a cancel note stops it as soon as it starts.
 */
export function killCommandScript(pidFile: string, graceSeconds: number): string {
  const pid = shellQuote(pidFile);
  const steps = Math.max(1, Math.round(graceSeconds * 10));
  return [
    `touch ${shellQuote(`${pidFile}.cancel`)} 2>/dev/null`,
    `pg=$(cat ${pid} 2>/dev/null)`,
    'case "$pg" in ""|*[!0-9]*) exit 0;; esac',
    // pids get reused: only a process still running our inner script is ours to kill.
    `if [ -r "/proc/$pg/cmdline" ] && ! grep -qa ${INNER_MARKER} "/proc/$pg/cmdline"; then exit 0; fi`,
    'kill -TERM -- "-$pg" 2>/dev/null || kill -TERM "$pg" 2>/dev/null',
    `for _ in $(seq 1 ${steps}); do kill -0 -- "-$pg" 2>/dev/null || kill -0 "$pg" 2>/dev/null || exit 0; sleep 0.1; done`,
    'kill -KILL -- "-$pg" 2>/dev/null || kill -KILL "$pg" 2>/dev/null',
    'exit 0',
  ].join('\n');
}

function dirOf(file: string): string {
  const index = file.lastIndexOf('/');
  return index <= 0 ? '/' : file.slice(0, index);
}
