// The default session store: one SQLite file (WAL mode, so the CLI can read while a worker writes).
import Database from 'better-sqlite3';
import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type {
  NewMessage,
  MessageSearchHit,
  MessageSearchQuery,
  NewSession,
  SessionRecord,
  SessionStore,
  SessionUpdate,
  StoredMessage,
} from './session-store';
import { ensureMessageSearchIndex, searchSqliteMessages } from './sqlite-message-search';
import { StoreFaultError } from './store-faults';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS sessions (
  session_id TEXT PRIMARY KEY,
  workflow_id TEXT NOT NULL,
  task TEXT NOT NULL,
  model TEXT NOT NULL,
  cwd TEXT NOT NULL,
  tool_names TEXT NOT NULL,
  status TEXT NOT NULL,
  parent_session_id TEXT,
  answer TEXT,
  error TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_created ON sessions (created_at);
CREATE TABLE IF NOT EXISTS messages (
  session_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  role TEXT NOT NULL,
  content TEXT,
  tool_calls TEXT,
  tool_call_id TEXT,
  name TEXT,
  created_at TEXT NOT NULL,
  sensitive INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (session_id, seq)
);
CREATE TABLE IF NOT EXISTS tool_listings (
  digest TEXT PRIMARY KEY,
  listing TEXT NOT NULL,
  created_at TEXT NOT NULL
);
`;

interface SessionRow {
  session_id: string;
  workflow_id: string;
  task: string;
  model: string;
  cwd: string;
  tool_names: string;
  status: string;
  parent_session_id: string | null;
  answer: string | null;
  error: string | null;
  created_at: string;
  updated_at: string;
}

interface MessageRow {
  seq: number;
  role: StoredMessage['role'];
  content: string | null;
  tool_calls: string | null;
  tool_call_id: string | null;
  name: string | null;
  created_at: string;
  sensitive: number;
}

export class SqliteSessionStore implements SessionStore {
  private readonly db: Database.Database;
  /** The file this connection writes into: a store deleted or replaced under it loses every write. */
  private readonly identity?: { dev: number; ino: number };
  /** Prepared once: preparing parses the SQL, a cost every turn's reads and writes paid again. */
  private readonly statements = new Map<string, Database.Statement>();

  constructor(readonly file: string) {
    if (file !== ':memory:') mkdirSync(path.dirname(file), { recursive: true });
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(SCHEMA);
    addSensitiveColumn(this.db);
    withholdWhatFollowsWithheld(this.db);
    ensureMessageSearchIndex(this.db);
    if (file !== ':memory:') {
      const stats = statSync(file);
      this.identity = { dev: stats.dev, ino: stats.ino };
    }
  }

  private statement(sql: string): Database.Statement {
    let prepared = this.statements.get(sql);
    if (!prepared) {
      prepared = this.db.prepare(sql);
      this.statements.set(sql, prepared);
    }
    return prepared;
  }

  /** Throws when the path no longer names the file this connection has open. */
  private checkIdentity(): void {
    if (!this.identity) return;
    let stats;
    try {
      stats = statSync(this.file);
    } catch {
      throw new StoreFaultError('gone', `The session store ${this.file} was deleted while this worker had it open: what it writes now would be lost. Restore the file or restart the worker.`);
    }
    if (stats.dev !== this.identity.dev || stats.ino !== this.identity.ino) {
      throw new StoreFaultError('gone', `The session store ${this.file} was replaced by another file while this worker had it open: what it writes now would be lost. Restart the worker.`);
    }
  }

  async assertWritable(): Promise<void> {
    this.checkIdentity();
    // A write statement that changes no row still needs a writable database (BEGIN IMMEDIATE does
    // not: it succeeds on a read-only WAL connection), and writes nothing.
    this.statement('UPDATE sessions SET status = status WHERE 0').run();
  }

  async saveToolListing(digest: string, listing: string): Promise<void> {
    this.checkIdentity();
    this.statement('INSERT OR IGNORE INTO tool_listings (digest, listing, created_at) VALUES (?, ?, ?)').run(digest, listing, new Date().toISOString());
  }

  async getToolListing(digest: string): Promise<string | undefined> {
    const row = this.statement('SELECT listing FROM tool_listings WHERE digest = ?').get(digest) as { listing: string } | undefined;
    return row?.listing;
  }

  async createSession(session: NewSession): Promise<SessionRecord> {
    this.checkIdentity();
    const now = new Date().toISOString();
    this.statement(
      `INSERT OR IGNORE INTO sessions (session_id, workflow_id, task, model, cwd, tool_names, status,
         parent_session_id, answer, error, created_at, updated_at)
       VALUES (@sessionId, @workflowId, @task, @model, @cwd, @toolNames, @status, @parentSessionId, @answer,
         @error, @now, @now)`,
    ).run({
      ...session,
      toolNames: JSON.stringify(session.toolNames),
      parentSessionId: session.parentSessionId ?? null,
      answer: session.answer ?? null,
      error: session.error ?? null,
      now,
    });
    return (await this.getSession(session.sessionId)) as SessionRecord;
  }

  async getSession(sessionId: string): Promise<SessionRecord | undefined> {
    this.checkIdentity();
    const row = this.statement('SELECT * FROM sessions WHERE session_id = ?').get(sessionId) as SessionRow | undefined;
    return row && toSession(row);
  }

  async updateSession(sessionId: string, update: SessionUpdate): Promise<void> {
    this.checkIdentity();
    const columns: Record<string, unknown> = {};
    if (update.status !== undefined) columns.status = update.status;
    if (update.answer !== undefined) columns.answer = update.answer;
    if (update.error !== undefined) columns.error = update.error;
    if (update.toolNames !== undefined) columns.tool_names = JSON.stringify(update.toolNames);
    const names = Object.keys(columns);
    if (!names.length) return;
    const assignments = names.map((name) => `${name} = @${name}`).join(', ');
    this.statement(`UPDATE sessions SET ${assignments}, updated_at = @now WHERE session_id = @sessionId`).run({ ...columns, now: new Date().toISOString(), sessionId });
  }

  async listSessions(options: { limit?: number } = {}): Promise<SessionRecord[]> {
    const rows = this.statement('SELECT * FROM sessions ORDER BY created_at DESC LIMIT ?').all(options.limit ?? 50) as SessionRow[];
    return rows.map(toSession);
  }

  async appendMessage(sessionId: string, message: NewMessage): Promise<StoredMessage> {
    this.checkIdentity();
    // Whatever follows a withheld message may repeat it (the model read it): it is withheld too.
    this.statement(
      `INSERT OR IGNORE INTO messages (session_id, seq, role, content, tool_calls, tool_call_id, name, created_at, sensitive)
       VALUES (@sessionId, @seq, @role, @content, @toolCalls, @toolCallId, @name, @createdAt,
         @sensitive OR EXISTS (SELECT 1 FROM messages WHERE session_id = @sessionId AND seq < @seq AND sensitive = 1))`,
    ).run({
      sessionId,
      seq: message.seq,
      role: message.role,
      content: message.content,
      toolCalls: message.toolCalls ? JSON.stringify(message.toolCalls) : null,
      toolCallId: message.toolCallId ?? null,
      name: message.name ?? null,
      createdAt: new Date().toISOString(),
      sensitive: message.sensitive ? 1 : 0,
    });
    return (await this.getMessage(sessionId, message.seq)) as StoredMessage;
  }

  async getMessage(sessionId: string, seq: number): Promise<StoredMessage | undefined> {
    this.checkIdentity();
    const row = this.statement('SELECT * FROM messages WHERE session_id = ? AND seq = ?').get(sessionId, seq) as
      | MessageRow
      | undefined;
    return row && toMessage(row);
  }

  async getMessages(sessionId: string, options: { fromSeq?: number; limit?: number; last?: number } = {}): Promise<StoredMessage[]> {
    if (options.last !== undefined) {
      const rows = this.statement('SELECT * FROM (SELECT * FROM messages WHERE session_id = ? AND seq >= ? ORDER BY seq DESC LIMIT ?) ORDER BY seq')
        .all(sessionId, options.fromSeq ?? 0, Math.max(0, options.last)) as MessageRow[];
      return rows.map(toMessage);
    }
    const rows = this.statement('SELECT * FROM messages WHERE session_id = ? AND seq >= ? ORDER BY seq LIMIT ?')
      .all(sessionId, options.fromSeq ?? 0, options.limit ?? -1) as MessageRow[];
    return rows.map(toMessage);
  }

  async searchMessages(query: MessageSearchQuery): Promise<MessageSearchHit[]> {
    return searchSqliteMessages(this.db, query);
  }

  async close(): Promise<void> {
    this.db.close();
  }
}

function toSession(row: SessionRow): SessionRecord {
  return {
    sessionId: row.session_id,
    workflowId: row.workflow_id,
    task: row.task,
    model: row.model,
    cwd: row.cwd,
    toolNames: JSON.parse(row.tool_names) as string[],
    status: row.status,
    ...(row.parent_session_id ? { parentSessionId: row.parent_session_id } : {}),
    ...(row.answer !== null ? { answer: row.answer } : {}),
    ...(row.error !== null ? { error: row.error } : {}),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toMessage(row: MessageRow): StoredMessage {
  return {
    seq: row.seq,
    role: row.role,
    content: row.content,
    ...(row.tool_calls ? { toolCalls: JSON.parse(row.tool_calls) as StoredMessage['toolCalls'] } : {}),
    ...(row.tool_call_id ? { toolCallId: row.tool_call_id } : {}),
    ...(row.name ? { name: row.name } : {}),
    ...(row.sensitive ? { sensitive: true as const } : {}),
    createdAt: row.created_at,
  };
}

/**
 * Stores written before a message's sensitivity carried on to the rest of its session get it
 * here, once: the partial index that keeps the per-append check cheap marks the change as made.
 */
function withholdWhatFollowsWithheld(db: Database.Database): void {
  const indexed = () => db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'messages_withheld'").get() !== undefined;
  if (indexed()) return;
  db.transaction(() => {
    if (indexed()) return;
    db.exec('CREATE INDEX messages_withheld ON messages (session_id, seq) WHERE sensitive = 1');
    db.exec(`UPDATE messages SET sensitive = 1 WHERE sensitive = 0 AND EXISTS
      (SELECT 1 FROM messages AS earlier WHERE earlier.session_id = messages.session_id AND earlier.seq < messages.seq AND earlier.sensitive = 1)`);
  }).immediate();
}

/** `messages.sensitive` was added after the first release: stores made before get it here, once. */
function addSensitiveColumn(db: Database.Database): void {
  const has = () => (db.prepare('PRAGMA table_info(messages)').all() as { name: string }[]).some((column) => column.name === 'sensitive');
  if (has()) return;
  // IMMEDIATE: two processes opening an old store at once add it once.
  db.transaction(() => {
    if (!has()) db.exec('ALTER TABLE messages ADD COLUMN sensitive INTEGER NOT NULL DEFAULT 0');
  }).immediate();
}
