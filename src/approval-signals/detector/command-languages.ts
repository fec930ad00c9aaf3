// Programs driven by a command language of their own that can escape to the shell: `psql`'s
// `\! CMD`, mysql's `system CMD`, sqlite's `.shell CMD`, ed's and vim's `!CMD`, dc's `!`, sftp's
// `!CMD`, gdb's `shell CMD`, m4's `syscmd(CMD)`, Tcl's `exec CMD`, less's `!CMD` and `|mCMD`. Fed
// on stdin (`psql <<< '\! rm -rf src'`) or in an option, the escaped text runs like any command
// and is judged so.
import { lookupTable } from './lookup-table';

const LINE_START = String.raw`(?:^|\n)[ \t]*`;
/** ed's and vi's `!CMD`, and `r !CMD`, `w !CMD`, `e !CMD` after an optional address range. */
const EDITOR_ESCAPE = new RegExp(`${LINE_START}:?(?:[\\d,.$%;+-]*[rwe]\\s*)?!([^\\n]*)`, 'g');
const SQL_CLIENT_ESCAPE = /(?:^|[;\n])\s*(?:\\!|system\s)\s*([^;\n]*)/gi;
const SQLITE_ESCAPE = new RegExp(`${LINE_START}\\.(?:shell|system)\\s+([^\\n]*)`, 'g');
const TCL_EXEC = /(?:^|[\n;[])\s*exec\s+([^\n;\]]*)/g;

const SHELL_ESCAPES = lookupTable<RegExp>({
  psql: /\\!\s*([^\n]*)/g,
  mysql: SQL_CLIENT_ESCAPE,
  mariadb: SQL_CLIENT_ESCAPE,
  sqlite3: SQLITE_ESCAPE,
  sqlite: SQLITE_ESCAPE,
  ed: EDITOR_ESCAPE,
  ex: EDITOR_ESCAPE,
  vim: EDITOR_ESCAPE,
  vi: EDITOR_ESCAPE,
  nvim: EDITOR_ESCAPE,
  dc: /!([^\n]*)/g,
  sftp: new RegExp(`${LINE_START}-?!([^\\n]*)`, 'g'),
  ftp: new RegExp(`${LINE_START}!([^\\n]*)`, 'g'),
  gdb: new RegExp(`${LINE_START}(?:shell\\s|!)([^\\n]*)`, 'g'),
  m4: /\be?syscmd\(([^)]*)\)/g,
  tclsh: TCL_EXEC,
  wish: TCL_EXEC,
  expect: /(?:^|[\n;[])\s*(?:exec|spawn)\s+([^\n;\]]*)/g,
});

/**
 * Languages read from an option only, never from stdin: what less reads there is the text it
 * shows. Its `!CMD`, and `|mCMD`, which pipes the text up to mark m into CMD.
 */
const OPTION_ESCAPES = lookupTable<RegExp>({
  less: /(?:^|\n)\s*\+?(?:!|\|[a-z^$.'])([^\n]*)/g,
});

export function hasCommandLanguage(program: string): boolean {
  return SHELL_ESCAPES[program] !== undefined;
}

/** The shell text `program` runs when it reads `text` as its commands. */
export function shellEscapes(program: string, text: string): string[] {
  const escape = SHELL_ESCAPES[program] ?? OPTION_ESCAPES[program];
  if (!escape) return [];
  return [...text.matchAll(escape)].map((match) => match[1]!.trim()).filter((command) => command !== '');
}
