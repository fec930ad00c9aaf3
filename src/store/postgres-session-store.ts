// The session store for workers on several machines: PostgreSQL through a connection pool, with
// the SQLite store's semantics (idempotent writes keyed by (session_id, seq), seq order, limits).
import { Pool, type PoolClient } from 'pg';
import type {
  NewMessage,
  MessageSearchHit,
  MessageSearchQuery,
  NewSession,
  SessionRecord,
  SessionStore,
  SessionUpdate,
  StoredMessage,
  StoredToolCall,
} from './session-store';
import type { MemoryDocuments } from './memory-documents';
import { memoryTableSql, PostgresMemoryDocuments } from './postgres-memory-documents';
import { searchIndexSql, searchPostgresMessages } from './postgres-message-search';
import { StoreFaultError } from './store-faults';

export const DEFAULT_POSTGRES_POOL_SIZE = 10;

export interface PostgresSessionStoreOptions {
  /** `postgres://user:password@host:port/database` (libpq URL parameters such as `sslmode` work). */
  connectionString: string;
  /** Connections this store keeps open at most. */
  poolSize?: number;
  /** Schema holding the tables, created if missing; unset means the connection's search_path. */
  schema?: string;
  /** Connecting gives up after this long, so an unreachable database fails the activity (which retries). */
  connectTimeoutMs?: number;
}

/** Serialises schema creation across processes; the value is only ever used for this. */
const SCHEMA_LOCK_KEY = 0x6865726d6573; // "hermes"

const schemaSql = (sessions: string, messages: string, listings: string) => `
CREATE TABLE IF NOT EXISTS ${sessions} (
  session_id TEXT PRIMARY KEY,
  workflow_id TEXT NOT NULL,
  task TEXT NOT NULL,
  model TEXT NOT NULL,
  cwd TEXT NOT NULL,
  tool_names JSONB NOT NULL,
  status TEXT NOT NULL,
  parent_session_id TEXT,
  answer TEXT,
  error TEXT,
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX IF NOT EXISTS hermes_sessions_created ON ${sessions} (created_at);
CREATE TABLE IF NOT EXISTS ${messages} (
  session_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  role TEXT NOT NULL,
  content TEXT,
  tool_calls JSONB,
  tool_call_id TEXT,
  name TEXT,
  created_at TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (session_id, seq)
);
CREATE TABLE IF NOT EXISTS ${listings} (
  digest TEXT PRIMARY KEY,
  listing TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL
);
`;

interface SessionRow {
  session_id: string;
  workflow_id: string;
  task: string;
  model: string;
  cwd: string;
  tool_names: string[];
  status: string;
  parent_session_id: string | null;
  answer: string | null;
  error: string | null;
  created_at: Date;
  updated_at: Date;
}

interface MessageRow {
  seq: number;
  role: StoredMessage['role'];
  content: string | null;
  tool_calls: StoredToolCall[] | null;
  tool_call_id: string | null;
  name: string | null;
  created_at: Date;
  sensitive: boolean;
}

export class PostgresSessionStore implements SessionStore {
  private readonly pool: Pool;
  private readonly schema: string | undefined;
  private readonly sessions: string;
  private readonly messages: string;
  private readonly memories: string;
  private readonly listings: string;
  private schemaReady: Promise<void> | undefined;

  constructor(options: PostgresSessionStoreOptions) {
    if (options.schema !== undefined && !/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(options.schema)) {
      throw new Error(`Invalid Postgres schema name '${options.schema}': use letters, digits and underscores`);
    }
    this.schema = options.schema;
    const qualify = (table: string) => (this.schema ? `"${this.schema}".${table}` : table);
    this.sessions = qualify('hermes_sessions');
    this.messages = qualify('hermes_messages');
    this.memories = qualify('hermes_memories');
    this.listings = qualify('hermes_tool_listings');
    this.pool = new Pool({
      connectionString: options.connectionString,
      max: options.poolSize ?? DEFAULT_POSTGRES_POOL_SIZE,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
      application_name: 'hermes-temporal',
    });
    // An idle connection dropped by the server (restart, failover) is discarded by the pool and
    // replaced on the next query; without a listener the 'error' event would end the process.
    this.pool.on('error', () => undefined);
  }

  async createSession(session: NewSession): Promise<SessionRecord> {
    await this.ready();
    const inserted = await this.pool.query<SessionRow>(
      `INSERT INTO ${this.sessions} (session_id, workflow_id, task, model, cwd, tool_names, status, parent_session_id,
         answer, error, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10, now(), now())
       ON CONFLICT (session_id) DO NOTHING
       RETURNING *`,
      [
        text(session.sessionId),
        text(session.workflowId),
        text(session.task),
        text(session.model),
        text(session.cwd),
        JSON.stringify(session.toolNames.map(text)),
        text(session.status),
        nullableText(session.parentSessionId),
        nullableText(session.answer),
        nullableText(session.error),
      ],
    );
    const row = inserted.rows[0];
    // A separate read (a new snapshot) sees a conflicting row committed by another worker meanwhile.
    return row ? toSession(row) : ((await this.getSession(session.sessionId)) as SessionRecord);
  }

  /** A standby, or a database set read-only, cannot keep what a turn produces: say so first. */
  async assertWritable(): Promise<void> {
    await this.ready();
    const result = await this.pool.query<{ read_only: string }>(`SELECT current_setting('transaction_read_only') AS read_only`);
    if (result.rows[0]?.read_only === 'on') {
      throw new StoreFaultError('read_only', 'The PostgreSQL session store is read-only (transaction_read_only is on: a standby, or default_transaction_read_only)');
    }
  }

  async getSession(sessionId: string): Promise<SessionRecord | undefined> {
    await this.ready();
    const result = await this.pool.query<SessionRow>(`SELECT * FROM ${this.sessions} WHERE session_id = $1`, [text(sessionId)]);
    const row = result.rows[0];
    return row && toSession(row);
  }

  async updateSession(sessionId: string, update: SessionUpdate): Promise<void> {
    const values: unknown[] = [];
    const assignments: string[] = [];
    const set = (column: string, value: unknown, cast = '') => {
      values.push(value);
      assignments.push(`${column} = $${values.length}${cast}`);
    };
    if (update.status !== undefined) set('status', text(update.status));
    if (update.answer !== undefined) set('answer', text(update.answer));
    if (update.error !== undefined) set('error', text(update.error));
    if (update.toolNames !== undefined) set('tool_names', JSON.stringify(update.toolNames.map(text)), '::jsonb');
    if (!assignments.length) return;
    await this.ready();
    values.push(text(sessionId));
    await this.pool.query(
      `UPDATE ${this.sessions} SET ${assignments.join(', ')}, updated_at = now() WHERE session_id = $${values.length}`,
      values,
    );
  }

  async listSessions(options: { limit?: number } = {}): Promise<SessionRecord[]> {
    await this.ready();
    const result = await this.pool.query<SessionRow>(`SELECT * FROM ${this.sessions} ORDER BY created_at DESC LIMIT $1`, [
      limitOf(options.limit ?? 50),
    ]);
    return result.rows.map(toSession);
  }

  async appendMessage(sessionId: string, message: NewMessage): Promise<StoredMessage> {
    await this.ready();
    const toolCalls = message.toolCalls?.map((call) => ({ ...call, id: text(call.id), name: text(call.name), arguments: text(call.arguments) }));
    // Whatever follows a withheld message may repeat it (the model read it): it is withheld too.
    const inserted = await this.pool.query<MessageRow>(
      `INSERT INTO ${this.messages} (session_id, seq, role, content, tool_calls, tool_call_id, name, created_at, sensitive)
       VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, now(), $8 OR EXISTS (SELECT 1 FROM ${this.messages} WHERE session_id = $1 AND seq < $2 AND sensitive))
       ON CONFLICT (session_id, seq) DO NOTHING
       RETURNING *`,
      [
        text(sessionId),
        message.seq,
        message.role,
        message.content === null ? null : text(message.content),
        toolCalls ? JSON.stringify(toolCalls) : null,
        nullableText(message.toolCallId),
        nullableText(message.name),
        message.sensitive === true,
      ],
    );
    const row = inserted.rows[0];
    return row ? toMessage(row) : ((await this.getMessage(sessionId, message.seq)) as StoredMessage);
  }

  async saveToolListing(digest: string, listing: string): Promise<void> {
    await this.ready();
    await this.pool.query(`INSERT INTO ${this.listings} (digest, listing, created_at) VALUES ($1, $2, now()) ON CONFLICT (digest) DO NOTHING`, [text(digest), text(listing)]);
  }

  async getToolListing(digest: string): Promise<string | undefined> {
    await this.ready();
    const result = await this.pool.query<{ listing: string }>(`SELECT listing FROM ${this.listings} WHERE digest = $1`, [text(digest)]);
    return result.rows[0]?.listing;
  }

  async getMessage(sessionId: string, seq: number): Promise<StoredMessage | undefined> {
    await this.ready();
    const result = await this.pool.query<MessageRow>(`SELECT * FROM ${this.messages} WHERE session_id = $1 AND seq = $2`, [
      text(sessionId),
      seq,
    ]);
    const row = result.rows[0];
    return row && toMessage(row);
  }

  async getMessages(sessionId: string, options: { fromSeq?: number; limit?: number; last?: number } = {}): Promise<StoredMessage[]> {
    await this.ready();
    const result =
      options.last !== undefined
        ? await this.pool.query<MessageRow>(
            `SELECT * FROM (SELECT * FROM ${this.messages} WHERE session_id = $1 AND seq >= $2 ORDER BY seq DESC LIMIT $3) tail ORDER BY seq`,
            [text(sessionId), options.fromSeq ?? 0, Math.max(0, options.last)],
          )
        : await this.pool.query<MessageRow>(
            `SELECT * FROM ${this.messages} WHERE session_id = $1 AND seq >= $2 ORDER BY seq LIMIT $3`,
            [text(sessionId), options.fromSeq ?? 0, limitOf(options.limit)],
          );
    return result.rows.map(toMessage);
  }

  async searchMessages(query: MessageSearchQuery): Promise<MessageSearchHit[]> {
    await this.ready();
    return searchPostgresMessages(this.pool, { sessions: this.sessions, messages: this.messages }, { ...query, query: text(query.query) });
  }

  /** Memory rows in this database, so every worker on it shares one memory. */
  memoryDocuments(): MemoryDocuments {
    return new PostgresMemoryDocuments(this.pool, this.memories, () => this.ready());
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  /** Creates the schema once per store; a failed attempt is retried by the next call. */
  private ready(): Promise<void> {
    this.schemaReady ??= this.createSchema().catch((error: unknown) => {
      this.schemaReady = undefined;
      throw error;
    });
    return this.schemaReady;
  }

  private async createSchema(): Promise<void> {
    const client = await this.pool.connect();
    try {
      await inTransaction(client, async () => {
        // Concurrent CREATE ... IF NOT EXISTS can still collide in the catalogs (workers starting
        // together), so they take turns; the lock ends with the transaction.
        await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [SCHEMA_LOCK_KEY]);
        if (this.schema) await client.query(`CREATE SCHEMA IF NOT EXISTS "${this.schema}"`);
        await client.query(schemaSql(this.sessions, this.messages, this.listings));
        // Added after the first release: created here for existing databases too.
        await client.query(searchIndexSql(this.messages));
        await client.query(`ALTER TABLE ${this.messages} ADD COLUMN IF NOT EXISTS sensitive BOOLEAN NOT NULL DEFAULT false`);
        await this.withholdWhatFollowsWithheld(client);
        await client.query(memoryTableSql(this.memories));
      });
    } finally {
      client.release();
    }
  }

  /**
   * Databases written before a message's sensitivity carried on to the rest of its session get it
   * here, once: the partial index that keeps the per-append check cheap marks the change as made.
   */
  private async withholdWhatFollowsWithheld(client: PoolClient): Promise<void> {
    const index = this.schema ? `"${this.schema}".hermes_messages_withheld` : 'hermes_messages_withheld';
    const found = await client.query<{ found: string | null }>('SELECT to_regclass($1)::text AS found', [index]);
    if (found.rows[0]?.found) return;
    await client.query(`CREATE INDEX hermes_messages_withheld ON ${this.messages} (session_id, seq) WHERE sensitive`);
    await client.query(`UPDATE ${this.messages} AS later SET sensitive = true WHERE NOT later.sensitive AND EXISTS
      (SELECT 1 FROM ${this.messages} AS earlier WHERE earlier.session_id = later.session_id AND earlier.seq < later.seq AND earlier.sensitive)`);
  }
}

async function inTransaction(client: PoolClient, body: () => Promise<void>): Promise<void> {
  await client.query('BEGIN');
  try {
    await body();
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/**
 * PostgreSQL text cannot hold U+0000 (SQLite can); a NUL from a model or a tool would fail every
 * retry of the activity writing it, so it is stored as U+FFFD instead.
 */
function text(value: string): string {
  return value.replaceAll('\u0000', '\uFFFD');
}

function nullableText(value: string | undefined): string | null {
  return value === undefined ? null : text(value);
}

/** SQLite reads a negative LIMIT as "no limit"; PostgreSQL refuses it, and reads NULL that way. */
function limitOf(limit: number | undefined): number | null {
  return limit === undefined || limit < 0 ? null : limit;
}

function toSession(row: SessionRow): SessionRecord {
  return {
    sessionId: row.session_id,
    workflowId: row.workflow_id,
    task: row.task,
    model: row.model,
    cwd: row.cwd,
    toolNames: row.tool_names,
    status: row.status,
    ...(row.parent_session_id ? { parentSessionId: row.parent_session_id } : {}),
    ...(row.answer !== null ? { answer: row.answer } : {}),
    ...(row.error !== null ? { error: row.error } : {}),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

function toMessage(row: MessageRow): StoredMessage {
  return {
    seq: row.seq,
    role: row.role,
    content: row.content,
    ...(row.tool_calls ? { toolCalls: row.tool_calls } : {}),
    ...(row.tool_call_id ? { toolCallId: row.tool_call_id } : {}),
    ...(row.name ? { name: row.name } : {}),
    ...(row.sensitive ? { sensitive: true as const } : {}),
    createdAt: row.created_at.toISOString(),
  };
}
