// Recognises shell commands that only look at things (ls, cat, grep, git status, ...), which may
// run beside other calls of the same turn. Conservative: anything it cannot vouch for (a
// redirection, a substitution, an unknown program) is treated as a command with side effects.
// (A helper module: it registers nothing, so tool discovery does not load it on its own.)

// Programs that cannot change anything, whatever their arguments (no `env`, `date`, `hostname`,
// `uniq`: each can run or write something given the right arguments).
const READ_ONLY_PROGRAMS = new Set([
  'cat', 'head', 'tail', 'wc', 'ls', 'tree', 'stat', 'du', 'df', 'grep', 'egrep', 'fgrep', 'rg', 'echo', 'printf',
  'pwd', 'whoami', 'id', 'uname', 'uptime', 'printenv', 'which', 'type', 'true', 'false', 'test', '[', 'sleep',
  'basename', 'dirname', 'realpath', 'readlink', 'cut', 'tr', 'nl', 'diff', 'cmp', 'md5sum', 'sha1sum', 'sha256sum',
  'jq', 'ps', 'free', 'nproc', 'seq',
]);

/** `git` subcommands that do not change the repository or the working tree. */
const READ_ONLY_GIT = new Set(['status', 'log', 'diff', 'show', 'rev-parse', 'ls-files', 'blame', 'describe', 'shortlog']);

export function isReadOnlyCommand(command: string): boolean {
  const unquoted = command.replace(/'[^']*'/g, "''").replace(/"(?:[^"\\$`]|\\.)*"/g, '""');
  // Redirections, substitutions, backgrounding and unbalanced quotes all need a real parser.
  if (/[<>`]|\$\(|&(?!&)|['"]/.test(unquoted.replace(/''|""/g, ''))) return false;
  const segments = unquoted.split(/\|\|?|&&|;|\n/);
  return segments.every((segment) => {
    const words = segment.trim().split(/\s+/).filter(Boolean);
    if (!words.length) return true;
    const [program = '', subcommand = ''] = words;
    if (program === 'git') return READ_ONLY_GIT.has(subcommand);
    if (program === 'find') return !words.some((word) => /^-(exec|execdir|ok|okdir|delete|fprint.*)$/.test(word));
    return READ_ONLY_PROGRAMS.has(program);
  });
}
