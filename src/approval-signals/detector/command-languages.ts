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
 * A makefile's shell text: recipe lines (after a tab, or after `;` on the rule's line, without
 * make's own `@+-` marks), `$(shell CMD)` and `VAR != CMD`, which run as the file is read.
 */
const MAKEFILE_SHELL = /(?:^|\n)(?:\t[@+-]*|[^\t\n#=:][^\n:=]*::?(?!=)[^\n;=]*;[ \t]*[@+-]*)([^\n]*)|\$\(shell\s+([^)]*)\)|(?:^|\n)[^\n=#]*!=\s*([^\n]*)/g;

/**
 * Languages read from stdin only when told to, or from an option: what less reads on stdin is the
 * text it shows (its `!CMD`, and `|mCMD`, which pipes the text up to mark m into CMD, come from
 * `+CMD`); make reads a makefile there only with `-f -`.
 */
const OPTION_ESCAPES = lookupTable<RegExp>({
  less: /(?:^|\n)\s*\+?(?:!|\|[a-z^$.'])([^\n]*)/g,
  make: MAKEFILE_SHELL,
  gmake: MAKEFILE_SHELL,
});

const STDIN_FILES = new Set(['-', '/dev/stdin', '/proc/self/fd/0', '/dev/fd/0']);

/** `program` reads its commands from stdin: always for a command language, for make only as `-f -`. */
export function readsCommandsFromStdin(program: string, args: readonly string[]): boolean {
  if (SHELL_ESCAPES[program] !== undefined) return true;
  return (program === 'make' || program === 'gmake') && makefilesNamed(args).some((file) => STDIN_FILES.has(file));
}

/** The makefiles named by `-f FILE`, `-fFILE`, `--file=FILE` and `--makefile FILE`. */
function makefilesNamed(args: readonly string[]): string[] {
  const files: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    const attached = /^(?:-f|--file=|--makefile=)(.+)$/s.exec(arg);
    if (['-f', '--file', '--makefile'].includes(arg)) files.push(args[++index] ?? '');
    else if (attached) files.push(attached[1]!);
  }
  return files;
}

export function hasCommandLanguage(program: string): boolean {
  return SHELL_ESCAPES[program] !== undefined;
}

/** The shell text `program` runs when it reads `text` as its commands. */
export function shellEscapes(program: string, text: string): string[] {
  const escape = SHELL_ESCAPES[program] ?? OPTION_ESCAPES[program];
  if (!escape) return [];
  return [...text.matchAll(escape)].map((match) => (match.slice(1).find((group) => group !== undefined) ?? '').trim()).filter((command) => command !== '');
}
