// The shell text the SSH backend sends. ssh has no cwd and servers drop `env` requests, so every
// command carries its own `cd` and `export`s, quoted; and closing a channel does not kill a
// non-PTY process, so each command records its process group where a second channel can kill it.
import { shellQuote } from '../shell-quote';
import { GROUP_ALIVE } from '../background/session-processes-script';
import { discardLogLine, finishLogLines, readLogScript, startLogLines } from '../shell/command-log-script';

/** Per-user directory for the pid and cwd files of running commands (under the remote home). */
const RUN_DIR = '"$HOME"/.hermes-temporal/run';
/** First words of every wrapper, so a pid can be recognised as ours before it is killed. */
const MARKER = '__hermes_exec';
/** Separates control records (pid, final cwd) on the wrapper's side channel (fd 3 → stderr). */
export const CONTROL_SEPARATOR = '\u001e';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A file-name-safe run id for a command id (tool call ids carry arbitrary characters). */
export function runIdFor(id: string): string {
  return id.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 200) || '_';
}

/** `path` for a remote shell: quoted, with a leading `~` left to the remote `$HOME`. */
export function remotePath(path: string): string {
  if (path === '~') return '"$HOME"';
  if (path.startsWith('~/')) return `"$HOME"/${shellQuote(path.slice(2))}`;
  return shellQuote(path);
}

export function exportLines(env: Record<string, string>): string[] {
  return Object.entries(env).map(([name, value]) => {
    if (!ENV_NAME.test(name)) throw new Error(`Invalid environment variable name for a remote command: '${name}'`);
    return `export ${name}=${shellQuote(value)}`;
  });
}

function pidFile(runId: string): string {
  return `${RUN_DIR}/${shellQuote(`${runId}.pid`)}`;
}

/** The output log of a run (non-PTY runs with an id), for a later worker: see command-log-script.ts. */
function logBase(runId: string): string {
  return `${RUN_DIR}/${shellQuote(`${runId}.log`)}`;
}

/** Prints what the run logged (see parseLog) and removes the log. */
export function readRunLogScript(runId: string): string {
  return readLogScript(logBase(runId));
}

function cwdFile(runId: string): string {
  return `${RUN_DIR}/${shellQuote(`${runId}.cwd`)}`;
}

export interface ExecScriptOptions {
  command: string;
  cwd: string;
  env: Record<string, string>;
  runId: string;
  pty: boolean;
  /** Keep a pid file (for a later worker's `killOrphan`); PTY runs always do. */
  pidFile: boolean;
}

/**
 * The command line for one command: bash (whatever the login shell is) running the command in
 * `cwd` with stdout and stderr interleaved. Without a PTY, a side channel (the original stderr,
 * fd 3) carries the process-group id at start and the final directory at the end; with a PTY
 * everything shares one stream, so those go to files instead.
 */
export function execScript(options: ExecScriptOptions): string {
  const { runId, pty } = options;
  const keepPidFile = options.pidFile || pty;
  const lines = [`${markerOf(runId)};`];
  if (keepPidFile) {
    lines.push(
      `{ [ -d ${RUN_DIR} ] || mkdir -p -m 700 ${RUN_DIR}; echo $$ > ${pidFile(runId)}; } 2>/dev/null`,
      `trap 'rm -f ${pidFile(runId).replace(/'/g, `'\\''`)}' EXIT`,
    );
  }
  lines.push(pty ? 'exec 2>&1' : `exec 3>&2 2>&1; printf '${CONTROL_SEPARATOR}P%s\\n' $$ >&3`);
  // A command a later worker may have to account for logs its output on the host (not under a
  // PTY: a pipe would replace its terminal).
  const logged = options.pidFile && !pty;
  if (logged) lines.push(...startLogLines(logBase(runId)));
  lines.push(...exportLines(options.env));
  lines.push(`builtin cd -- ${remotePath(options.cwd)} || exit 126`);
  // The command's own `cd` persists (eval runs in this shell); fd 3 stays ours.
  lines.push(pty ? `eval ${shellQuote(options.command)}` : `eval ${shellQuote(options.command)} 3>&-`);
  lines.push('__hermes_status=$?');
  if (logged) lines.push(...finishLogLines(logBase(runId)));
  lines.push(pty ? `builtin pwd -P > ${cwdFile(runId)} 2>/dev/null` : `printf '${CONTROL_SEPARATOR}C' >&3; builtin pwd -P >&3`);
  lines.push('exit $__hermes_status');
  return `exec bash -c ${shellQuote(lines.join('\n'))} hermes-exec`;
}

/** Reads (and removes) the final directory a PTY run left in its cwd file. */
export function readCwdScript(runId: string): string {
  return `cat ${cwdFile(runId)} 2>/dev/null; rm -f ${cwdFile(runId)}`;
}

export interface ControlRecords {
  pid?: number;
  cwd?: string;
  /** Side-channel text that is not a record (errors before the wrapper took over stderr). */
  stray: string;
}

/** Splits the side channel of a non-PTY run into its records. */
export function parseControl(text: string): ControlRecords {
  const records: ControlRecords = { stray: '' };
  const [before = '', ...parts] = text.split(CONTROL_SEPARATOR);
  records.stray += before;
  for (const part of parts) {
    if (part.startsWith('P')) {
      const pid = Number.parseInt(part.slice(1), 10);
      if (Number.isInteger(pid) && pid > 1) records.pid = pid;
    } else if (part.startsWith('C')) {
      const cwd = part.slice(1).replace(/\n$/, '');
      if (cwd.startsWith('/')) records.cwd = cwd;
    } else {
      records.stray += part;
    }
  }
  return records;
}

/**
 * Stops a run's whole process group: TERM, up to `graceSeconds` for it to go, then KILL. The
 * group is named by a known pid or by the run's pid file; either way only a process that still
 * runs this run's wrapper is signalled (pids get reused).
 */
export function killScript(target: { runId: string; pid?: number }, graceSeconds: number, options: { discardLog?: boolean } = {}): string {
  const ticks = Math.max(1, Math.round(graceSeconds * 10));
  return [
    // This worker stops its own run: the log is for a worker that died, so it goes.
    ...(options.discardLog ? [discardLogLine(logBase(target.runId))] : []),
    GROUP_ALIVE,
    target.pid ? `p=${target.pid}` : `p=$(cat ${pidFile(target.runId)} 2>/dev/null)`,
    `rm -f ${pidFile(target.runId)}`,
    'case "$p" in ""|*[!0-9]*) exit 0;; esac',
    `a=$(tr '\\0' ' ' < /proc/$p/cmdline 2>/dev/null || ps -ww -o args= -p "$p" 2>/dev/null)`,
    `case "$a" in *${shellQuote(`${markerOf(target.runId)};`)}*) ;; *) exit 0;; esac`,
    'kill -TERM -- "-$p" 2>/dev/null || kill -TERM "$p" 2>/dev/null || exit 0',
    `i=0; while [ $i -lt ${ticks} ] && alive "$p"; do sleep 0.1; i=$((i+1)); done`,
    'kill -KILL -- "-$p" 2>/dev/null; true',
  ].join('\n');
}

/** `__hermes_exec=<run id>`: an assignment in the wrapper, and its signature in the process list. */
function markerOf(runId: string): string {
  return `${MARKER}=${runId}`;
}
