// The shell around each foreground command in a container. There is no exec-kill API, so the
// command runs as its own process group (a job of a `set -m` shell) whose id goes to a pidfile
// named after the exec id; a second exec kills that group on timeout, abort, or for a later
// worker (`killOrphan`). The outer shell survives the kill and reports the command's final cwd.
import { shellQuote } from '../shell-quote';
import { discardLogLine, finishLogLines, readLogScript, startLogLines } from '../shell/command-log-script';

/** Per-command pidfiles and cwd files; /tmp is a tmpfs that lives as long as the container. */
export const EXEC_STATE_DIR = '/tmp/hermes-exec';
/** Appears in every command's shell, so a pid can be recognised as ours before it is killed. */
const COMMAND_MARKER = '__hermes_exit';

export function pidFileFor(execId: string): string {
  return `${EXEC_STATE_DIR}/${execId.replace(/[^A-Za-z0-9_.-]/g, '_')}.pid`;
}

/** The shell word naming a command's output log files (beside its pidfile). */
function logBaseFor(execId: string): string {
  return shellQuote(`${pidFileFor(execId).slice(0, -'.pid'.length)}.log`);
}

/** Prints what the command with `execId` logged (see parseLog) and removes the log. */
export function readLogScriptFor(execId: string): string {
  return readLogScript(logBaseFor(execId));
}

/**
 * The outer script. `set -m` puts the command in its own process group (pid = pgid, recorded
 * by the command's shell itself) while keeping the exec's terminal in TTY mode (`setsid` would
 * lose it). After the command, `marker` and the directory it ended in close stdout.
 */
export function commandScript(options: { command: string; cwd: string; execId: string; marker: string; pty?: boolean }): string {
  const pidFile = pidFileFor(options.execId);
  const cwdFile = `${pidFile.slice(0, -'.pid'.length)}.cwd`;
  // Without a TTY the output is also logged in the container, for a later worker (readOrphanOutput).
  const logged = !options.pty;
  const log = logBaseFor(options.execId);
  const inner = [
    `echo $$ > ${shellQuote(pidFile)}`,
    ...(logged ? startLogLines(log) : []),
    `builtin cd -- ${shellQuote(options.cwd)} || exit 126`,
    `eval ${shellQuote(options.command)}`,
    `${COMMAND_MARKER}=$?`,
    `builtin pwd -P > ${shellQuote(cwdFile)} 2>/dev/null`,
    ...(logged ? finishLogLines(log) : []),
    `exit $${COMMAND_MARKER}`,
  ].join('\n');
  return [
    `mkdir -p ${EXEC_STATE_DIR} || exit 125`,
    'set -m',
    // This shell's own stderr (job reports such as "Terminated") is not command output.
    'exec 3>&2 2>/dev/null',
    `bash -c ${shellQuote(inner)} 2>&3 3>&-`,
    'code=$?',
    `printf '%s%s\\n' ${shellQuote(options.marker)} "$(cat ${shellQuote(cwdFile)} 2>/dev/null)"`,
    `rm -f ${shellQuote(pidFile)} ${shellQuote(cwdFile)}`,
    'exit $code',
  ].join('\n');
}

/**
 * Kills the process group recorded for `execId`: TERM, then KILL after the grace period. Waits
 * a little for a pidfile that is about to appear (a command being started right now), and checks
 * the leader still runs our shell (pids get reused) before signalling anything.
 */
export function killScript(execId: string, graceSeconds: number, waitForPidFileSeconds: number, options: { discardLog?: boolean } = {}): string {
  const pidFile = shellQuote(pidFileFor(execId));
  return [
    // This worker stops its own command: the log is for a worker that died, so it goes.
    ...(options.discardLog ? [discardLogLine(logBaseFor(execId))] : []),
    `for _ in $(seq 1 ${Math.round(waitForPidFileSeconds * 20)}); do [ -s ${pidFile} ] && break; sleep 0.05; done`,
    `pg=$(cat ${pidFile} 2>/dev/null) || exit 0`,
    '[ -n "$pg" ] || exit 0',
    `grep -q ${COMMAND_MARKER} /proc/"$pg"/cmdline 2>/dev/null || exit 0`,
    'kill -TERM -- -"$pg" 2>/dev/null || exit 0',
    `for _ in $(seq 1 ${Math.max(1, Math.round(graceSeconds * 10))}); do kill -0 -- -"$pg" 2>/dev/null || exit 0; sleep 0.1; done`,
    'kill -KILL -- -"$pg" 2>/dev/null',
    'exit 0',
  ].join('\n');
}
