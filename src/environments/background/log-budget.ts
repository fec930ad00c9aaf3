// The logs of a session's background processes share one budget on disk (each is also capped by
// the sandbox's file-size limit): many processes writing output must not fill the host's temp
// folder. A process starting takes a share of what is left (at most a quarter of the whole, so a
// few can run side by side); a finished one counts what its log holds. Output past a process's
// share is dropped, after a note in its log; the process itself runs on.
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { shellQuote } from '../shell-quote';

/** The default budget (terminal.local.background_log_total_mb). */
export const DEFAULT_BACKGROUND_LOG_TOTAL_MB = 2048;

/** A process's share of the session's budget: at most this fraction of the whole. */
const SHARE_DIVISOR = 4;

/** The line that ends a log whose output past its share is dropped. */
export function logBudgetNote(totalBytes: number): string {
  const mib = Math.round(totalBytes / (1024 * 1024));
  return `[hermes-temporal: further output of this process is dropped: the session's background logs share ${mib} MiB on disk (terminal.local.background_log_total_mb); the process still runs]`;
}

/**
 * Shell text that sets `quota` (bytes) for a new file-backed process in `stateDir`: a process
 * (file-backed, or PTY under `pty/`) still running counts its own quota (`<id>.quota`), an ended
 * one its log's size. The same rule as `quotaFor`.
 */
export function quotaScript(stateDir: string, totalBytes: number): string {
  const dir = shellQuote(stateDir);
  return [
    'used=0',
    `for q in ${dir}/proc_*.quota ${dir}/pty/proc_*.quota; do [ -f "$q" ] || continue; b="\${q%.quota}"`,
    '  if [ -f "$b.exit" ]; then n=$(wc -c < "$b.log" 2>/dev/null || echo 0); else n=$(cat "$q" 2>/dev/null || echo 0); fi',
    '  used=$((used + ${n:-0})); done',
    `quota=$((${totalBytes} - used)); [ "$quota" -gt ${Math.floor(totalBytes / SHARE_DIVISOR)} ] && quota=${Math.floor(totalBytes / SHARE_DIVISOR)}; [ "$quota" -gt 0 ] || quota=0`,
  ].join('\n');
}

/** The quota of a new PTY process, by `quotaScript`'s rule (the worker writes PTY logs itself). */
export async function quotaFor(stateDir: string, totalBytes: number): Promise<number> {
  let used = 0;
  for (const directory of [stateDir, path.join(stateDir, 'pty')]) {
    const names = await readdir(directory).catch(() => [] as string[]);
    for (const name of names.filter((candidate) => /^proc_.*\.quota$/.test(candidate))) {
      const base = path.join(directory, name.slice(0, -'.quota'.length));
      const ended = await stat(`${base}.exit`).then(() => true, () => false);
      used += ended ? await stat(`${base}.log`).then((info) => info.size, () => 0) : Number(await readFile(path.join(directory, name), 'utf8').catch(() => '0')) || 0;
    }
  }
  return Math.max(0, Math.min(totalBytes - used, Math.floor(totalBytes / SHARE_DIVISOR)));
}

/**
 * Shell text (run by the process's runner, outside the sandbox) that copies its stdin to the log
 * `"$1.log"` up to `"$1.quota"` bytes, then notes the cut and drains the rest, so the writer
 * never blocks or dies of a closed pipe. `head` writes through stdio: unbuffered (stdbuf), the
 * log shows output as it comes.
 */
export function cappedLogWriter(totalBytes: number): string {
  return `{ $(command -v stdbuf > /dev/null 2>&1 && echo stdbuf -o0) head -c "$(cat "$1.quota")"; if [ "$(wc -c < "$1.log")" -ge "$(cat "$1.quota")" ]; then printf '\\n%s\\n' ${shellQuote(logBudgetNote(totalBytes))}; cat > /dev/null; fi; } > "$1.log"`;
}

/** Writes a PTY process's output to its log up to its quota, then the note once; what follows is dropped. */
export function cappedWriter(write: (text: string) => void, quota: number, totalBytes: number): (text: string) => void {
  let left = quota;
  let noted = false;
  return (text) => {
    const bytes = Buffer.byteLength(text);
    if (bytes <= left) {
      left -= bytes;
      write(text);
      return;
    }
    if (left > 0) write(Buffer.from(text).subarray(0, left).toString('utf8'));
    left = 0;
    if (!noted) write(`\n${logBudgetNote(totalBytes)}\n`);
    noted = true;
  };
}
