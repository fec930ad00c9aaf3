// The four shapes of session_search (discover, scroll, read, browse) over any SessionStore.
// The session asking, and every session of its lineage (its root and the root's sub-agents), are
// never shown: their content is the asker's own context already. With `within` set, sessions
// started outside that folder do not exist as far as the asker can tell.
import { isInFolder } from '../store/folder-prefix';
import type { MessageRole, MessageSearchHit, SessionRecord, SessionStore, StoredMessage } from '../store/session-store';
import { clipText, LineageResolver, MAX_RESULT_CHARS, MAX_SNIPPET_CHARS, sessionMeta, shapeMessage, type ShapedMessage } from './session-search-views';

export type SearchAnswer = Record<string, unknown>;

/** FTS rows read before keeping the best per lineage: enough to see past one very chatty session. */
const DISCOVER_SCAN_LIMIT = 300;
const DISCOVER_WINDOW = 5;
const BOOKEND = 3;
const READ_HEAD = 20;
const READ_TAIL = 10;

export const failure = (error: string): SearchAnswer => ({ success: false, error });

export async function discover(
  store: SessionStore,
  request: { query: string; roles: MessageRole[]; limit: number; sort?: 'newest' | 'oldest'; currentSessionId: string; within?: string },
): Promise<SearchAnswer> {
  const { query, limit } = request;
  const empty = { success: true, mode: 'discover', query, results: [], count: 0, message: 'No matching sessions found.' };
  if (!store.searchMessages) return failure('Session search is not available: this session store has no full-text index.');
  let hits: MessageSearchHit[];
  try {
    hits = await store.searchMessages({
      query,
      roles: request.roles,
      limit: DISCOVER_SCAN_LIMIT,
      ...(request.sort ? { sort: request.sort } : {}),
      ...(request.within !== undefined ? { within: request.within } : {}),
    });
  } catch (error) {
    // Not `instanceof Error`: a native driver's error may come from another realm.
    const reason = (error as { message?: unknown } | null)?.message;
    return failure(`Search failed: ${typeof reason === 'string' ? reason : String(error)}`);
  }
  const lineage = new LineageResolver(store);
  const currentRoot = await lineage.rootOf(request.currentSessionId);
  const bestPerRoot = new Map<string, MessageSearchHit>();
  for (const hit of hits) {
    if (bestPerRoot.size >= limit) break;
    const root = await lineage.rootOf(hit.sessionId);
    if (root !== currentRoot && !bestPerRoot.has(root)) bestPerRoot.set(root, hit);
  }
  if (!bestPerRoot.size) return empty;

  const results: SearchAnswer[] = [];
  for (const [root, hit] of bestPerRoot) {
    const rootSession = await lineage.session(root);
    const view = await anchoredView(store, hit.sessionId, hit.seq);
    results.push({
      session_id: hit.sessionId,
      ...(root !== hit.sessionId ? { parent_session_id: root } : {}),
      ...(rootSession ? sessionMeta(rootSession) : {}),
      matched_role: hit.role,
      match_message_id: hit.seq,
      snippet: clipText(hit.snippet, MAX_SNIPPET_CHARS),
      ...view,
    });
  }
  return bounded({ success: true, mode: 'discover', query, results, count: results.length, sessions_searched: bestPerRoot.size });
}

export async function scroll(
  store: SessionStore,
  request: { sessionId: string; aroundSeq: number; window: number; currentSessionId: string; within?: string },
): Promise<SearchAnswer> {
  const { sessionId, aroundSeq, window } = request;
  const lineage = new LineageResolver(store);
  if ((await lineage.rootOf(sessionId)) === (await lineage.rootOf(request.currentSessionId))) {
    return failure('scroll rejected: anchor lives in the current session lineage (already in your active context)');
  }
  const session = visibleSession(await lineage.session(sessionId), request.within);
  if (!session) return failure(`session_id not found: ${sessionId}`);
  const messages = await windowAround(store, sessionId, aroundSeq, window);
  if (!messages.some((message) => message.seq === aroundSeq)) return failure(`around_message_id ${aroundSeq} not in session_id ${sessionId}`);
  return {
    success: true,
    mode: 'scroll',
    session_id: sessionId,
    around_message_id: aroundSeq,
    session_meta: sessionMeta(session),
    window,
    messages: messages.map((message) => shapeMessage(message, aroundSeq)),
    messages_before: messages.filter((message) => message.seq < aroundSeq).length,
    messages_after: messages.filter((message) => message.seq > aroundSeq).length,
  };
}

export async function read(store: SessionStore, request: { sessionId: string; currentSessionId: string; within?: string }): Promise<SearchAnswer> {
  const { sessionId } = request;
  const lineage = new LineageResolver(store);
  if ((await lineage.rootOf(sessionId)) === (await lineage.rootOf(request.currentSessionId))) {
    return failure('read rejected: this session is in the current session lineage (already in your active context)');
  }
  const session = visibleSession(await lineage.session(sessionId), request.within);
  if (!session) return failure(`session_id not found: ${sessionId}`);
  // One more than a whole small session, to know whether it is large.
  const head = await store.getMessages(sessionId, { limit: READ_HEAD + READ_TAIL + 2 });
  const large = visible(head).length > READ_HEAD + READ_TAIL;
  const tail = large ? await store.getMessages(sessionId, { last: READ_TAIL }) : [];
  const shown = large ? [...visible(head).slice(0, READ_HEAD), ...visible(tail)] : visible(head);
  const total = large ? (tail.at(-1)?.seq ?? 0) + 1 : head.length;
  return {
    success: true,
    mode: 'read',
    session_id: sessionId,
    session_meta: sessionMeta(session),
    ...(session.parentSessionId ? { parent_session_id: session.parentSessionId } : {}),
    message_count: total,
    truncated: large,
    messages: shown.map((message) => shapeMessage(message)),
    ...(large
      ? { message: `Session has ${total} messages; showing first ${READ_HEAD} + last ${READ_TAIL}. Pass around_message_id (any id above) to scroll the middle.` }
      : {}),
  };
}

export async function browse(store: SessionStore, request: { limit: number; currentSessionId: string; within?: string }): Promise<SearchAnswer> {
  const lineage = new LineageResolver(store);
  const currentRoot = await lineage.rootOf(request.currentSessionId);
  // Sub-agent sessions are part of their root's story, not sessions of their own; other folders' are not shown.
  const sessions = (await store.listSessions({ limit: request.limit + 200 }))
    .filter((session) => !session.parentSessionId && session.sessionId !== currentRoot && visibleSession(session, request.within))
    .slice(0, request.limit);
  const results = sessions.map((session) => ({
    session_id: session.sessionId,
    ...sessionMeta(session),
    started_at: session.createdAt,
    last_active: session.updatedAt,
    ...(session.answer ? { preview: clipText(session.answer, 200) } : {}),
  }));
  return {
    success: true,
    mode: 'browse',
    results,
    count: results.length,
    message: `Showing ${results.length} most recent sessions. Pass a query= to search, or session_id+around_message_id to scroll.`,
  };
}

/** The match in context: ±5 messages around it, and the session's opening and closing exchanges. */
async function anchoredView(store: SessionStore, sessionId: string, seq: number): Promise<SearchAnswer> {
  const window = await windowAround(store, sessionId, seq, DISCOVER_WINDOW);
  const conversation = (messages: StoredMessage[]) => messages.filter((message) => (message.role === 'user' || message.role === 'assistant') && message.content);
  const opening = conversation(await store.getMessages(sessionId, { limit: 20 })).slice(0, BOOKEND);
  const closing = conversation(await store.getMessages(sessionId, { last: 20 })).slice(-BOOKEND);
  return {
    bookend_start: opening.map((message) => shapeMessage(message)),
    messages: window.map((message) => shapeMessage(message, seq)),
    bookend_end: closing.map((message) => shapeMessage(message)),
    messages_before: window.filter((message) => message.seq < seq).length,
    messages_after: window.filter((message) => message.seq > seq).length,
  };
}

/** The messages at most `size` seqs before and after `seq` (fewer at the start or end of the session). */
async function windowAround(store: SessionStore, sessionId: string, seq: number, size: number): Promise<StoredMessage[]> {
  const from = Math.max(0, seq - size);
  const messages = await store.getMessages(sessionId, { fromSeq: from, limit: seq + size - from + 1 });
  return visible(messages.filter((message) => message.seq <= seq + size));
}

/** The session when the asker may see it: started in `within` or below it (or no folder is set). */
function visibleSession(session: SessionRecord | undefined, within: string | undefined): SessionRecord | undefined {
  return session && (within === undefined || isInFolder(session.cwd, within)) ? session : undefined;
}

/** System prompts are the runtime's, not the conversation (and carry the memory snapshot). */
function visible(messages: StoredMessage[]): StoredMessage[] {
  return messages.filter((message) => message.role !== 'system');
}

/** Drops the lowest-ranked results until the answer fits, and says so. */
function bounded(answer: SearchAnswer & { results: SearchAnswer[] }): SearchAnswer {
  const results = [...answer.results];
  let dropped = 0;
  while (results.length > 1 && JSON.stringify({ ...answer, results }).length > MAX_RESULT_CHARS) {
    results.pop();
    dropped += 1;
  }
  if (!dropped) return answer;
  return { ...answer, results, count: results.length, truncated: true, message: `${dropped} lower-ranked result(s) left out to keep the answer short; narrow the query or lower limit.` };
}

export type { ShapedMessage };
