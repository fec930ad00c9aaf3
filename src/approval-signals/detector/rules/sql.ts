// Destructive SQL, only where SQL is executed: text given to a database client (`psql -c`,
// `mysql -e`, `sqlite3 DB SQL`, heredocs and here-strings into them), or typed where a command
// belongs (`DROP TABLE users`, text meant for a database prompt). Quoted SQL elsewhere is data.
import type { ExecutedCommand } from '../analysis-types';
import { DATABASE_CLIENTS, SQL_KEYWORD_COMMANDS } from '../program-names';
import type { RuleHit, RuleId } from '../rule-catalog';
import { feedText } from '../stdin-feeds';
import { args, canonicalCommand } from './rule-helpers';
import type { Rule } from './rule-types';
import { lookupTable } from '../lookup-table';

export const sqlRules: Rule = (input) => {
  const hits: RuleHit[] = [];
  for (const command of input.analysis.commands) {
    if (command.program === null) continue;
    let texts: string[] = [];
    if (SQL_KEYWORD_COMMANDS.has(command.program) && looksLikeSql(command)) texts = [command.argv.map((word) => word.value).join(' ')];
    else if (DATABASE_CLIENTS.has(command.program)) texts = clientSql(command);
    for (const statement of texts.flatMap(sqlStatements)) {
      const id = destructiveStatement(statement);
      if (id) hits.push({ id, canonical: canonicalCommand(command, [command.program, statement.replace(/\s+/g, ' ')]), command: command.text });
    }
  }
  return hits;
};

/** `truncate -s 0 file` is coreutils; `TRUNCATE users` / `truncate table users` is SQL. */
function looksLikeSql(command: ExecutedCommand): boolean {
  if (command.program !== 'truncate') return true;
  return command.name === 'TRUNCATE' || /^table$/i.test(command.argv[1]?.value ?? '');
}

/** Options that carry SQL, per client. */
const SQL_OPTIONS = lookupTable<string[]>({
  psql: ['-c', '--command'],
  mysql: ['-e', '--execute'],
  mariadb: ['-e', '--execute'],
  mysqlsh: ['-e', '--execute', '--sql'],
  'clickhouse-client': ['-q', '--query'],
  clickhouse: ['-q', '--query'],
  duckdb: ['-c', '-cmd', '-s'],
  sqlite3: ['-cmd'],
  sqlite: ['-cmd'],
  sqlcmd: ['-Q', '-q'],
  cockroach: ['-e', '--execute'],
});

function clientSql(command: ExecutedCommand): string[] {
  const words = args(command);
  const options = SQL_OPTIONS[command.program ?? ''] ?? [];
  const texts: string[] = [];
  const operands: string[] = [];
  for (let index = 0; index < words.length; index++) {
    const value = words[index]!.value;
    const attached = options.find((option) => option.startsWith('--') && value.startsWith(`${option}=`));
    const shortAttached = options.find((option) => !option.startsWith('--') && option.length === 2 && value.startsWith(option) && value.length > 2);
    if (options.includes(value)) texts.push(words[++index]?.value ?? '');
    else if (attached) texts.push(value.slice(attached.length + 1));
    else if (shortAttached && !value.startsWith('--')) texts.push(value.slice(2));
    else if (!value.startsWith('-')) operands.push(value);
  }
  // sqlite3 DB "SQL...", duckdb DB "SQL": statements after the database file.
  if (['sqlite3', 'sqlite', 'duckdb'].includes(command.program ?? '')) texts.push(...operands.slice(1));
  const fed = feedText(command.stdin);
  if (fed !== undefined) texts.push(fed);
  return texts;
}

/** Statements with comments and string literals blanked, split at semicolons. */
export function sqlStatements(text: string): string[] {
  const cleaned = text
    .replace(/--[^\n]*/g, ' ')
    .replace(/\/\*[\s\S]*?\*\//g, ' ')
    .replace(/'(?:[^']|'')*'/g, "''")
    .replace(/"(?:[^"]|"")*"/g, '""');
  return cleaned
    .split(';')
    .map((statement) => statement.trim())
    .filter(Boolean);
}

export function destructiveStatement(statement: string): RuleId | undefined {
  const upper = statement.toUpperCase();
  if (/^DROP\s+/.test(upper) || /^ALTER\s+TABLE\b.*\bDROP\s+(?:COLUMN|CONSTRAINT|PARTITION)\b/s.test(upper)) return 'D14';
  if (/^TRUNCATE\b/.test(upper)) return 'D16';
  if (/^DELETE\s+FROM\b/.test(upper) && !/\bWHERE\b/.test(upper)) return 'D15';
  if (/^UPDATE\b.*\bSET\b/s.test(upper) && !/\bWHERE\b/.test(upper)) return 'N01';
  return undefined;
}
