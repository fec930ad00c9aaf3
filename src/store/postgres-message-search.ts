// Full-text search for the PostgreSQL store: a GIN expression index over the messages' text, and
// the FTS5 query syntax the tool documents (AND by default, OR, NOT or -, "phrases", prefix*)
// translated into a tsquery. The 'simple' configuration: no stemming, like FTS5's unicode61.
import type { Pool } from 'pg';
import { folderPrefix } from './folder-prefix';
import type { MessageSearchHit, MessageSearchQuery } from './session-store';

export const SEARCH_VECTOR = "to_tsvector('simple', coalesce(content, ''))";

export const searchIndexSql = (messages: string) =>
  `CREATE INDEX IF NOT EXISTS hermes_messages_search ON ${messages} USING GIN (${SEARCH_VECTOR});`;

const ORDER: Record<NonNullable<MessageSearchQuery['sort']> | 'relevance', string> = {
  relevance: 'rank DESC',
  newest: 'started DESC, rank DESC',
  oldest: 'started ASC, rank DESC',
};

/** Headlines are computed on at most this much of a message: tool output can be huge. */
const HEADLINE_SOURCE_CHARS = 20_000;

/** Matches, best first; results that needed a person's approval are never matches (as in SQLite). */
export async function searchPostgresMessages(
  pool: Pool,
  tables: { sessions: string; messages: string },
  query: MessageSearchQuery,
): Promise<MessageSearchHit[]> {
  const tsquery = toTsquery(query.query);
  const order = ORDER[query.sort ?? 'relevance'];
  const result = await pool.query<{ session_id: string; seq: number; role: MessageSearchHit['role']; snippet: string | null }>(
    `WITH hits AS (
       SELECT m.session_id, m.seq, m.role, m.content, s.created_at AS started, ts_rank(${SEARCH_VECTOR.replace('content', 'm.content')}, q) AS rank
         FROM ${tables.messages} m JOIN ${tables.sessions} s ON s.session_id = m.session_id, to_tsquery('simple', $1) q
        WHERE ${SEARCH_VECTOR.replace('content', 'm.content')} @@ q AND m.role = ANY($2::text[]) AND m.role <> 'system' AND NOT m.sensitive
              AND ($4::text IS NULL OR s.cwd = $4 OR left(s.cwd, length($5::text)) = $5)
        ORDER BY ${order}
        LIMIT $3)
     SELECT session_id, seq, role,
            ts_headline('simple', left(content, ${HEADLINE_SOURCE_CHARS}), to_tsquery('simple', $1),
                        'StartSel=>>>, StopSel=<<<, MaxWords=24, MinWords=8, MaxFragments=1, FragmentDelimiter=...') AS snippet
       FROM hits ORDER BY ${order}`,
    [tsquery, query.roles, query.limit, query.within ?? null, folderPrefix(query.within)],
  );
  return result.rows.map((row) => ({ sessionId: row.session_id, seq: row.seq, role: row.role, snippet: row.snippet ?? '' }));
}

/**
 * FTS5-style query text as a tsquery: terms are ANDed; `OR` joins its neighbours; `NOT term` or
 * `-term` excludes; "quoted words" must follow each other; a trailing `*` matches a prefix.
 * Throws on a query with no searchable word.
 */
export function toTsquery(text: string): string {
  const parts: string[] = [];
  let pendingOr = false;
  let negateNext = false;
  for (const match of text.matchAll(/"([^"]*)"?|(\S+)/g)) {
    const phrase = match[1];
    let word = match[2];
    if (word === 'OR') {
      pendingOr = parts.length > 0;
      continue;
    }
    if (word === 'AND') continue;
    if (word === 'NOT') {
      negateNext = true;
      continue;
    }
    let negate = negateNext;
    negateNext = false;
    if (word?.startsWith('-') && word.length > 1) {
      negate = true;
      word = word.slice(1);
    }
    const term = phrase !== undefined ? lexemes(phrase, false) : lexemes(word ?? '', word?.endsWith('*') ?? false);
    if (!term) continue;
    const operand = negate ? `!(${term})` : `(${term})`;
    parts.push(parts.length ? `${pendingOr ? '|' : '&'} ${operand}` : operand);
    pendingOr = false;
  }
  if (!parts.length) throw new Error(`no searchable word in query '${text}'`);
  return parts.join(' ');
}

/** The words of a term as adjacent lexemes (`'a' <-> 'b'`), the last a prefix when asked. */
function lexemes(text: string, prefix: boolean): string | undefined {
  const words = text.toLowerCase().match(/[\p{L}\p{N}_]+/gu);
  if (!words) return undefined;
  return words.map((word, index) => `'${word}'${prefix && index === words.length - 1 ? ':*' : ''}`).join(' <-> ');
}
