// Full-text search for the SQLite store: an FTS5 table fed by a trigger on every appended message
// (system prompts left out), created and back-filled once for stores made before it existed.
// It keeps its own copy of the text rather than pointing at `messages` rows by rowid, which
// VACUUM may renumber.
import type Database from 'better-sqlite3';
import type { MessageSearchHit, MessageSearchQuery } from './session-store';
import { folderPrefix } from './folder-prefix';

const INDEX_SCHEMA = `
CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5(
  session_id UNINDEXED, seq UNINDEXED, role UNINDEXED, content, tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER IF NOT EXISTS messages_fts_insert AFTER INSERT ON messages
WHEN new.content IS NOT NULL AND new.role != 'system'
BEGIN
  INSERT INTO messages_fts (session_id, seq, role, content) VALUES (new.session_id, new.seq, new.role, new.content);
END;
CREATE TRIGGER IF NOT EXISTS messages_fts_delete AFTER DELETE ON messages
BEGIN
  DELETE FROM messages_fts WHERE session_id = old.session_id AND seq = old.seq;
END;
`;

const BACKFILL = `
INSERT INTO messages_fts (session_id, seq, role, content)
SELECT session_id, seq, role, content FROM messages WHERE content IS NOT NULL AND role != 'system'
`;

/** Creates the index if this store has none yet, indexing the messages already there. */
export function ensureMessageSearchIndex(db: Database.Database): void {
  const exists = () => db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'messages_fts'").get() !== undefined;
  if (exists()) return;
  // IMMEDIATE: two processes opening an old store at once create and fill the index once.
  db.transaction(() => {
    if (exists()) return;
    db.exec(INDEX_SCHEMA);
    db.exec(BACKFILL);
  }).immediate();
}

const ORDER: Record<NonNullable<MessageSearchQuery['sort']> | 'relevance', string> = {
  relevance: 'f.rank',
  newest: 's.created_at DESC, f.rank',
  oldest: 's.created_at ASC, f.rank',
};

interface HitRow {
  session_id: string;
  seq: number;
  role: MessageSearchHit['role'];
  snippet: string | null;
}

/**
 * Matches, best first; a malformed FTS5 query throws SQLite's own message. Results that needed a
 * person's approval are never matches: the asking session's own lineage is not searched anyway.
 */
export function searchSqliteMessages(db: Database.Database, query: MessageSearchQuery): MessageSearchHit[] {
  const rows = db
    .prepare(
      `SELECT f.session_id AS session_id, f.seq AS seq, f.role AS role,
              snippet(messages_fts, 3, '>>>', '<<<', '...', 24) AS snippet
         FROM messages_fts f JOIN sessions s ON s.session_id = f.session_id
              JOIN messages m ON m.session_id = f.session_id AND m.seq = f.seq
        WHERE messages_fts MATCH @match AND f.role IN (SELECT value FROM json_each(@roles)) AND m.sensitive = 0
              AND (@within IS NULL OR s.cwd = @within OR substr(s.cwd, 1, length(@below)) = @below)
        ORDER BY ${ORDER[query.sort ?? 'relevance']}
        LIMIT @limit`,
    )
    .all({ match: query.query, roles: JSON.stringify(query.roles), limit: query.limit, within: query.within ?? null, below: folderPrefix(query.within) }) as HitRow[];
  return rows.map((row) => ({ sessionId: row.session_id, seq: Number(row.seq), role: row.role, snippet: row.snippet ?? '' }));
}
