// Programs driven by a command language of their own that can escape to the shell: `psql`'s
// `\! CMD`, mysql's `system CMD`, sqlite's `.shell CMD`, ed's and vim's `!CMD`, dc's `!`, sftp's
// `!CMD`, gdb's `shell CMD`, m4's `syscmd(CMD)`, Tcl's `exec CMD`. Fed on stdin (`psql <<<
// '\! rm -rf src'`) or in an option, the escaped text runs like any command and is judged so.

const LINE_START = String.raw`(?:^|\n)[ \t]*`;

const SHELL_ESCAPES: Readonly<Record<string, RegExp>> = {
  psql: /\\!\s*([^\n]*)/g,
  mysql: /(?:^|[;\n])\s*(?:\\!|system\s)\s*([^;\n]*)/gi,
  mariadb: /(?:^|[;\n])\s*(?:\\!|system\s)\s*([^;\n]*)/gi,
  sqlite3: new RegExp(`${LINE_START}\\.(?:shell|system)\\s+([^\\n]*)`, 'g'),
  sqlite: new RegExp(`${LINE_START}\\.(?:shell|system)\\s+([^\\n]*)`, 'g'),
  // `!CMD`, and `r !CMD`, `w !CMD`, `e !CMD` with an optional address range.
  ed: new RegExp(`${LINE_START}:?(?:[\\d,.$;+-]*[rwe]\\s*)?!([^\\n]*)`, 'g'),
  ex: new RegExp(`${LINE_START}:?(?:[\\d,.$%;+-]*[rwe]\\s*)?!([^\\n]*)`, 'g'),
  vim: new RegExp(`${LINE_START}:?(?:[\\d,.$%;+-]*[rwe]\\s*)?!([^\\n]*)`, 'g'),
  vi: new RegExp(`${LINE_START}:?(?:[\\d,.$%;+-]*[rwe]\\s*)?!([^\\n]*)`, 'g'),
  nvim: new RegExp(`${LINE_START}:?(?:[\\d,.$%;+-]*[rwe]\\s*)?!([^\\n]*)`, 'g'),
  dc: /!([^\n]*)/g,
  sftp: new RegExp(`${LINE_START}-?!([^\\n]*)`, 'g'),
  ftp: new RegExp(`${LINE_START}!([^\\n]*)`, 'g'),
  gdb: new RegExp(`${LINE_START}(?:shell\\s|!)([^\\n]*)`, 'g'),
  m4: /\be?syscmd\(([^)]*)\)/g,
  tclsh: /(?:^|[\n;[])\s*exec\s+([^\n;\]]*)/g,
  wish: /(?:^|[\n;[])\s*exec\s+([^\n;\]]*)/g,
  expect: /(?:^|[\n;[])\s*(?:exec|spawn)\s+([^\n;\]]*)/g,
};

export function hasCommandLanguage(program: string): boolean {
  return program in SHELL_ESCAPES;
}

/** The shell text `program` runs when it reads `text` as its commands. */
export function shellEscapes(program: string, text: string): string[] {
  const escape = SHELL_ESCAPES[program];
  if (!escape) return [];
  return [...text.matchAll(escape)].map((match) => match[1]!.trim()).filter((command) => command !== '');
}
