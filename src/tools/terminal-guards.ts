// Checks the terminal tool makes before a command runs: the workdir must be a plain path, and a
// foreground command must not start something that never ends (a server, a watcher, `&`).
// (A helper module: it registers nothing, so tool discovery does not load it on its own.)

const WORKDIR_PATTERN = /^[A-Za-z0-9/\\:_\-.~ +@=,]+$/;

/** The first character that makes `workdir` unsafe to put in a command, if any. */
export function disallowedWorkdirCharacter(workdir: string): string | undefined {
  if (WORKDIR_PATTERN.test(workdir)) return undefined;
  return [...workdir].find((char) => !WORKDIR_PATTERN.test(char)) ?? '';
}

const SHELL_LEVEL_BACKGROUND = /(?:^|[;&|]\s*|&&\s*|\|\|\s*|\$\(\s*)(?:nohup|disown|setsid)\b/im;
const INLINE_BACKGROUND_AMPERSAND = /\s&\s/;
const TRAILING_BACKGROUND_AMPERSAND = /\s&\s*(?:#.*)?$/;
const LONG_LIVED_FOREGROUND = [
  /\b(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?(?:dev|start|serve|watch)\b/i,
  /\bdocker\s+compose\s+up\b/i,
  /\bnext\s+dev\b/i,
  /\bvite(?:\s|$)/i,
  /\bnodemon\b/i,
  /\buvicorn\b/i,
  /\bgunicorn\b/i,
  /\bpython(?:3)?\s+-m\s+http\.server\b/i,
];

export const SHELL_WRAPPER_GUIDANCE =
  'Foreground command uses shell-level background wrappers (nohup/disown/setsid). ' +
  'Use terminal(background=true) so Hermes can track the process, then run readiness checks and tests in separate commands.';
export const AMPERSAND_GUIDANCE =
  "Foreground command uses '&' backgrounding. Use terminal(background=true) for long-lived processes, " +
  'then run health checks and tests in follow-up terminal calls.';
export const LONG_LIVED_GUIDANCE =
  'This foreground command appears to start a long-lived server/watch process. Run it with background=true, ' +
  'verify readiness (health endpoint/log signal), then execute tests in a separate command.';

/**
 * Why a foreground command should run with `background=true` instead, or undefined. Quoted
 * strings are blanked first, so `git commit -m "... setsid ..."` passes; `--help`/`--version`
 * invocations always pass.
 */
export function foregroundBackgroundGuidance(command: string): string | undefined {
  if (looksLikeHelpOrVersion(command)) return undefined;
  const unquoted = blankQuotedStrings(command);
  if (SHELL_LEVEL_BACKGROUND.test(unquoted)) return SHELL_WRAPPER_GUIDANCE;
  if (INLINE_BACKGROUND_AMPERSAND.test(unquoted) || TRAILING_BACKGROUND_AMPERSAND.test(unquoted)) return AMPERSAND_GUIDANCE;
  if (LONG_LIVED_FOREGROUND.some((pattern) => pattern.test(unquoted))) return LONG_LIVED_GUIDANCE;
  return undefined;
}

function looksLikeHelpOrVersion(command: string): boolean {
  const normalized = command.toLowerCase().split(/\s+/).filter(Boolean).join(' ');
  return normalized.includes(' --help') || normalized.endsWith(' -h') || normalized.includes(' --version') || normalized.endsWith(' -v');
}

/** `'...'`, `"..."` and `` `...` `` replaced by empty quotes. */
export function blankQuotedStrings(command: string): string {
  return command
    .replace(/'[^']*'/g, "''")
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/`[^`]*`/g, '``');
}
