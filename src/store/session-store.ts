// The session store keeps what must not live in workflow history: transcripts and session
// records (DESIGN.md rule 2). Async so that a Postgres implementation can serve several workers.

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

export type NewSession = Omit<SessionRecord, 'createdAt' | 'updatedAt'>;
export type SessionUpdate = Partial<Pick<SessionRecord, 'status' | 'answer' | 'error' | 'toolNames'>>;

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
  /** Messages in seq order, optionally from a seq on. */
  getMessages(sessionId: string, options?: { fromSeq?: number; limit?: number }): Promise<StoredMessage[]>;
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
