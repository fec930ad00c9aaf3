// Post-processing of terminal output for the model: ANSI stripping and exit-code explanations.
// (A helper module: it registers nothing, so tool discovery does not load it on its own.)

// eslint-disable-next-line no-control-regex
const ANSI_PATTERN = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]|[\x80-\x9f]/g;

export function stripAnsi(text: string): string {
  return text.replace(ANSI_PATTERN, '');
}

const MEANINGS: Record<string, Record<number, string>> = {
  grep: { 1: 'No matches found (not an error)' },
  diff: { 1: 'Files differ (expected, not an error)' },
  find: { 1: 'Some directories were inaccessible (partial results may still be valid)' },
  test: { 1: 'Condition evaluated to false (expected, not an error)' },
  curl: {
    6: 'Could not resolve host',
    7: 'Failed to connect to host',
    22: 'HTTP response code indicated error (e.g. 404, 500)',
    28: 'Operation timed out',
  },
  git: { 1: "Non-zero exit (often normal — e.g. 'git diff' returns 1 when files differ)" },
};
const ALIASES: Record<string, string> = {
  egrep: 'grep', fgrep: 'grep', rg: 'grep', ag: 'grep', ack: 'grep', colordiff: 'diff', '[': 'test',
};

/** What a non-zero exit code usually means for the last command of the pipeline, if notable. */
export function exitCodeMeaning(command: string, exitCode: number): string | undefined {
  if (exitCode === 0) return undefined;
  const name = lastCommandName(command);
  if (!name) return undefined;
  return MEANINGS[ALIASES[name] ?? name]?.[exitCode];
}

/** Basename of the command in the last segment of a pipeline or list (assignments skipped). */
export function lastCommandName(command: string): string | undefined {
  const segments = command.split(/\|\|?|&&|;|\n/);
  const words = (segments[segments.length - 1] ?? '').trim().split(/\s+/).filter(Boolean);
  const first = words.find((word) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word));
  return first?.replace(/^['"]|['"]$/g, '').split('/').pop();
}
