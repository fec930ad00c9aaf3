// The session store keeps what must not live in workflow history: transcripts and session
// records (DESIGN.md rule 2). Async so that a Postgres implementation can serve several workers.
import type { MemoryDocuments } from './memory-documents';

export type MessageRole = 'system' | 'user' | 'assistant' | 'tool';

export interface StoredToolCall {
  id: string;
  name: string;
  /** The model's argument text, exactly as received (it may be malformed JSON). */
  arguments: string;
}

export interface StoredMessage {
  seq: number;
  role: MessageRole;
  content: string | null;
  toolCalls?: StoredToolCall[];
  /** For tool results: the call this answers. */
  toolCallId?: string;
  /** For tool results: the tool's name. */
  name?: string;
  /**
   * Other sessions' searches withhold it: a tool result whose call needed a person's approval by
   * default. The store sets it on every later message of the session too, which may repeat it.
   */
  sensitive?: true;
  createdAt: string;
}

export type NewMessage = Omit<StoredMessage, 'createdAt'>;

export interface SessionRecord {
  sessionId: string;
  workflowId: string;
  task: string;
  model: string;
  cwd: string;
  /** Tools the session may call (resolved once at session start). */
  toolNames: string[];
  status: string;
  parentSessionId?: string;
  answer?: string;
  error?: string;
  createdAt: string;
  updatedAt: string;
}

/** Statuses a record holds only while its workflow runs. */
export const OPEN_SESSION_STATUSES: ReadonlySet<string> = new Set(['running', 'awaiting_approval']);

export type NewSession = Omit<SessionRecord, 'createdAt' | 'updatedAt'>;
export type SessionUpdate = Partial<Pick<SessionRecord, 'status' | 'answer' | 'error' | 'toolNames'>>;

/** A full-text query over stored transcripts (FTS5 syntax; PostgreSQL translates it). */
export interface MessageSearchQuery {
  query: string;
  /** Roles whose messages may match (system prompts are never indexed). */
  roles: MessageRole[];
  /** Rows at most, best first. */
  limit: number;
  /** Bias on top of relevance: sessions started most recently (or earliest) first. */
  sort?: 'newest' | 'oldest';
  /** Only sessions started in this folder or below it (see session-search-scope.ts). */
  within?: string;
}

export interface MessageSearchHit {
  sessionId: string;
  seq: number;
  role: MessageRole;
  /** The matching excerpt, terms marked `>>>like this<<<`. */
  snippet: string;
}

export interface SessionStore {
  /** Creates the record; a second call for the same id leaves the first in place. */
  createSession(session: NewSession): Promise<SessionRecord>;
  getSession(sessionId: string): Promise<SessionRecord | undefined>;
  updateSession(sessionId: string, update: SessionUpdate): Promise<void>;
  listSessions(options?: { limit?: number }): Promise<SessionRecord[]>;
  /**
   * Appends a message at `(sessionId, seq)`. Idempotent: if that seq already exists (an activity
   * retried after writing), the stored message is returned unchanged.
   */
  appendMessage(sessionId: string, message: NewMessage): Promise<StoredMessage>;
  getMessage(sessionId: string, seq: number): Promise<StoredMessage | undefined>;
  /** Messages in seq order, optionally from a seq on; `last` keeps only the last N (still in seq order). */
  getMessages(sessionId: string, options?: { fromSeq?: number; limit?: number; last?: number }): Promise<StoredMessage[]>;
  /**
   * Full-text search over every session's transcript. Throws on a malformed query (the caller
   * reports it). Optional so that stand-in stores need not index anything.
   */
  searchMessages?(query: MessageSearchQuery): Promise<MessageSearchHit[]>;
  /** Where the memory documents live when this store is shared by several machines (else: files). */
  memoryDocuments?(): MemoryDocuments;
  /**
   * Throws a StoreFaultError when the store cannot take a write now (read-only, file deleted or
   * replaced), so that work whose result could not be kept (a paid model call) is not started.
   */
  assertWritable?(): Promise<void>;
  /**
   * Keeps a session's listed MCP tools under their content digest (idempotent: same digest, same
   * text), so workflow history carries the digest and never the schemas.
   */
  saveToolListing(digest: string, listing: string): Promise<void>;
  getToolListing(digest: string): Promise<string | undefined>;
  close(): Promise<void>;
}
