// Families of programs the rules talk about, by lower-cased basename.

export const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'fish', 'csh', 'tcsh', 'yash', 'posh', 'rbash', 'ksh93', 'pdksh']);

// Every language runtime that takes a program inline, from a file or from stdin: one left out
// here ran `-e` code unasked where `python -c` asks, so a model needed only another language.
const INTERPRETER_NAMES = new Set([
  'node', 'nodejs', 'perl', 'ruby', 'php', 'deno', 'bun', 'lua', 'luajit', 'pypy', 'pypy3', 'r', 'rscript', 'julia', 'elixir',
  'erl', 'escript', 'racket', 'guile', 'groovy', 'scala', 'clojure', 'clj', 'bb', 'swift', 'ghc', 'runghc', 'sbcl', 'clisp', 'ecl',
  'octave', 'tclsh', 'wish', 'jshell', 'osascript',
]);

export function isInterpreter(program: string): boolean {
  return INTERPRETER_NAMES.has(program) || /^python(\d+(\.\d+)?)?$/.test(program);
}

export function isShell(program: string): boolean {
  return SHELLS.has(program);
}

export const FETCHERS = new Set(['curl', 'wget', 'nc', 'ncat', 'netcat', 'telnet', 'fetch', 'aria2c', 'http', 'https', 'xh', 'lwp-request', 'socat']);

export const DATABASE_CLIENTS = new Set([
  'psql', 'mysql', 'mariadb', 'sqlite3', 'sqlite', 'clickhouse-client', 'clickhouse', 'duckdb', 'sqlcmd', 'cockroach', 'mysqlsh',
]);

/** Command names that are SQL keywords: text meant for a database prompt, judged as SQL. */
export const SQL_KEYWORD_COMMANDS = new Set(['drop', 'delete', 'truncate', 'update', 'alter']);

export const POWER_COMMANDS = new Set(['shutdown', 'reboot', 'halt', 'poweroff']);
