// How session_search shows stored messages and sessions to the model: bounded (recalled text was
// written by models and tools, so it is cut, stripped of escape and control characters, and
// capped as a whole), with message ids being seqs.
import type { SessionRecord, SessionStore, StoredMessage } from '../store/session-store';
import { stripAnsi } from './terminal-output';
import { stripControlCharacters } from './untrusted-text';

export const MAX_MESSAGE_CHARS = 500;
export const MAX_SNIPPET_CHARS = 300;
export const MAX_TITLE_CHARS = 120;
/** The whole answer stays under this: results past it are dropped, and the answer says so. */
export const MAX_RESULT_CHARS = 30_000;
/** Parent links followed at most (a loop or a very deep tree stops here). */
const MAX_LINEAGE_DEPTH = 32;

export function cleanText(text: string): string {
  return stripControlCharacters(stripAnsi(text));
}

export function clipText(text: string, maxChars: number): string {
  const cleaned = cleanText(text);
  return cleaned.length > maxChars ? `${cleaned.slice(0, maxChars)}…` : cleaned;
}

export interface ShapedMessage {
  id: number;
  role: string;
  content: string | null;
  timestamp: string;
  tool_name?: string;
  tool_calls?: string[];
  anchor?: true;
  content_truncated?: true;
  original_content_chars?: number;
}

/** What stands in for a result only a person's approval gave its own session, and for what came after it. */
export const WITHHELD_CONTENT = "[withheld: it holds, or may repeat, a result only a person's approval gave its own session]";

/** Every message shown is another lineage's: what needed a person's approval, and what followed it, is withheld. */
export function shapeMessage(message: StoredMessage, anchorSeq?: number): ShapedMessage {
  const content = message.sensitive ? WITHHELD_CONTENT : message.content === null ? null : cleanText(message.content);
  const truncated = content !== null && content.length > MAX_MESSAGE_CHARS;
  return {
    id: message.seq,
    role: message.role,
    content: truncated ? `${content.slice(0, MAX_MESSAGE_CHARS)}…` : content,
    timestamp: message.createdAt,
    ...(message.name ? { tool_name: message.name } : {}),
    // Names only: the arguments may be as long as a file.
    ...(message.toolCalls?.length ? { tool_calls: message.toolCalls.map((call) => clipText(call.name, 64)) } : {}),
    ...(anchorSeq === message.seq ? { anchor: true as const } : {}),
    ...(truncated ? { content_truncated: true as const, original_content_chars: content.length } : {}),
  };
}

/** What the model sees of a session's record. */
export function sessionMeta(session: SessionRecord): Record<string, unknown> {
  return { when: formatWhen(session.createdAt), model: session.model, title: clipText(session.task, MAX_TITLE_CHARS), status: session.status };
}

/** "December 02, 2026 at 12:52 AM UTC", as the original formats its timestamps. */
export function formatWhen(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const month = date.toLocaleString('en-US', { month: 'long', timeZone: 'UTC' });
  const hours = date.getUTCHours();
  const twelve = hours % 12 === 0 ? 12 : hours % 12;
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${month} ${pad(date.getUTCDate())}, ${date.getUTCFullYear()} at ${pad(twelve)}:${pad(date.getUTCMinutes())} ${hours < 12 ? 'AM' : 'PM'} UTC`;
}

/** Finds sessions' roots (the session that is nobody's sub-agent), remembering what it read. */
export class LineageResolver {
  private readonly sessions = new Map<string, Promise<SessionRecord | undefined>>();

  constructor(private readonly store: SessionStore) {}

  session(sessionId: string): Promise<SessionRecord | undefined> {
    let found = this.sessions.get(sessionId);
    if (!found) {
      found = this.store.getSession(sessionId);
      this.sessions.set(sessionId, found);
    }
    return found;
  }

  async rootOf(sessionId: string): Promise<string> {
    let current = sessionId;
    const seen = new Set<string>();
    for (let depth = 0; depth < MAX_LINEAGE_DEPTH && !seen.has(current); depth += 1) {
      seen.add(current);
      const parent = (await this.session(current))?.parentSessionId;
      if (!parent) break;
      current = parent;
    }
    return current;
  }
}
