// The shell side of a command's output log on remote backends (docker, ssh): the command's own
// wrapper copies its output into files beside its pidfile, so a later worker can read what it
// printed after the worker that ran it died. Bounded: a head file, then two tail segments used in
// turn (awk), so the head and at least the last segment of output survive.
import { COMMAND_LOG_MAX_CHARS } from '../command-log';

const HEAD_CHARS = Math.floor(COMMAND_LOG_MAX_CHARS * 0.4);
const SEGMENT_CHARS = COMMAND_LOG_MAX_CHARS - HEAD_CHARS;
/** Separates the head and the two segments in what `readLogScript` prints. */
const PART_SEPARATOR = '\u001e';

/**
 * Writes stdin into `<base>.head`, then `<base>.0` / `<base>.1` in turn, each started afresh
 * when it is full; `<base>.turns` counts the switches (which segment is current, whether any
 * output was dropped). At its end, if the command ended normally (`<base>.done`), it removes the
 * whole log: nobody will ask for it.
 */
const LOGGER_AWK = [
  '{ line = $0 "\\n"',
  '  if (used < headmax) { printf "%s", line > (base ".head"); fflush(base ".head"); used += length(line); next }',
  '  if (cur == "" || (size > 0 && size + length(line) > segmax)) {',
  '    if (cur != "") close(cur)',
  '    turns++; cur = base "." (turns % 2); size = 0',
  '    printf "%d", turns > (base ".turns"); close(base ".turns")',
  '  }',
  '  printf "%s", line > cur; fflush(cur); size += length(line) }',
  'END { if (cur != "") close(cur); close(base ".head")',
  '  if (system("test -e \\"" base ".done\\"") == 0) system("rm -f \\"" base "\\".*") }',
].join('\n');

/**
 * Lines for a bash wrapper: from here on, stdout and stderr go to the original stdout through
 * `tee`, which also feeds the logger. Both ignore TERM, INT and HUP: a kill of the command's
 * process group ends them only by end of input, once everything the command printed is logged.
 * `base` is shell text (quoted, may expand `$HOME`). Not for PTY runs: the command would see a
 * pipe instead of its terminal.
 */
export function startLogLines(base: string): string[] {
  const awk = `awk -v base=${base} -v headmax=${HEAD_CHARS} -v segmax=${SEGMENT_CHARS} '${LOGGER_AWK.replace(/'/g, `'\\''`)}'`;
  return [
    `rm -f ${base}.*`,
    `exec > >(trap '' TERM INT HUP; exec tee >(exec ${awk} 2>/dev/null) 3>&-) 2>&1`,
    '__hermes_log_pid=$!',
  ];
}

/**
 * Lines for the wrapper once the command ended normally: the log is marked done (the logger then
 * removes it), stdout is closed, and the wrapper waits (at most ~0.5 s: a background child may
 * hold the pipe) for tee to pass the rest on before anything else is printed.
 */
export function finishLogLines(base: string): string[] {
  return [
    `: > ${base}.done`,
    'exec >&- 2>&-',
    'for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$__hermes_log_pid" 2>/dev/null || break; sleep 0.05; done',
  ];
}

/** Marks the log at `base` done: the worker that runs the command is stopping it and needs no log. */
export function discardLogLine(base: string): string {
  return `: > ${base}.done 2>/dev/null`;
}

/** Prints the log at `base` (head, older segment, current segment) and removes it. */
export function readLogScript(base: string): string {
  const sep = `printf '${PART_SEPARATOR}'`;
  return [
    `[ -e ${base}.head ] || exit 0`,
    `t=$(cat ${base}.turns 2>/dev/null); t=\${t:-0}`,
    `printf '%s' "$t"; ${sep}`,
    `cat ${base}.head; ${sep}`,
    `[ "$t" -gt 1 ] && cat ${base}.$(( (t - 1) % 2 )); ${sep}`,
    `[ "$t" -gt 0 ] && cat ${base}.$(( t % 2 ))`,
    `rm -f ${base}.*`,
    'exit 0',
  ].join('\n');
}

/** What `readLogScript` printed, as the model should see it; undefined when there was no log. */
export function parseLog(printed: string): string | undefined {
  const [turnsText, head, older = '', current = ''] = printed.split(PART_SEPARATOR);
  if (head === undefined) return undefined;
  const turns = Number(turnsText);
  const tail = (older + current).slice(-SEGMENT_CHARS);
  // Two switches or more: a segment was started afresh over older output.
  const dropped = turns > 2 || older.length + current.length > tail.length;
  return dropped ? `${head}\n\n... [OUTPUT TRUNCATED - earlier output omitted] ...\n\n${tail}` : head + older + current;
}
