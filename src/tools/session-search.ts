// The session_search tool: recall across past sessions from the session store (full-text search,
// scrolling, reading, browsing). A pure read: it may run beside other calls and be repeated.
import { z } from 'zod';
import { register } from '../registry/registry';
import { toolError, toolResult } from '../registry/results';
import type { RecallScope } from '../registry/tool-entry';
import type { MessageRole, SessionRecord, SessionStore } from '../store/session-store';
import { SESSION_SEARCH_DESCRIPTION } from './session-search-description';
import { queryRefusal } from './session-search-query';
import { browse, discover, read, scroll } from './session-search-shapes';

const SEARCHABLE_ROLES: readonly MessageRole[] = ['user', 'assistant', 'tool'];
const DEFAULT_ROLES: MessageRole[] = ['user', 'assistant'];
/** Sub-agents nest a few levels; a longer chain of parents is not followed (nor trusted). */
const MAX_LINEAGE_DEPTH = 64;

/** An integer from what the model sent, or undefined (the original coerces with int()). */
const integer = (value: unknown): number | undefined => {
  const parsed = typeof value === 'string' && value.trim() ? Number(value) : value;
  return typeof parsed === 'number' && Number.isFinite(parsed) ? Math.trunc(parsed) : undefined;
};
const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));

const sessionSearchArguments = z.object({
  query: z
    .string()
    .optional()
    .describe(
      'Search query (discovery shape). Keywords, phrases, or boolean expressions to find in past sessions. Omit to browse recent sessions. Ignored when session_id + around_message_id are set (scroll shape).',
    ),
  limit: z
    .unknown()
    .optional()
    .meta({ type: 'integer', default: 3 })
    .describe('Discovery and browse shapes. Max sessions to return (default 3, max 10).'),
  sort: z
    .string()
    .optional()
    .meta({ enum: ['newest', 'oldest'] })
    .describe(
      "Discovery shape only. Recency bias on top of relevance. Omit for relevance-only ordering. 'newest' for \"where did we leave X\", 'oldest' for \"how did X start\".",
    ),
  session_id: z.string().optional().describe('Scroll and read shapes. The session to read inside (a session_id from a prior discovery or browse call).'),
  around_message_id: z
    .unknown()
    .optional()
    .meta({ type: 'integer' })
    .describe(
      "Scroll shape. Message id (the message's seq in its session) to center the window on: a discovery result's match_message_id, or any id seen in a prior window.",
    ),
  window: z
    .unknown()
    .optional()
    .meta({ type: 'integer', default: 5 })
    .describe('Scroll shape only. Messages to return on each side of the anchor (anchor itself always included). Clamped to [1, 20]. Default 5.'),
  role_filter: z
    .string()
    .optional()
    .describe("Optional. Comma-separated roles to search. Discovery defaults to 'user,assistant'; add 'tool' to search tool output too."),
});

register({
  name: 'session_search',
  toolset: 'session_search',
  emoji: '🔍',
  schema: sessionSearchArguments,
  description: SESSION_SEARCH_DESCRIPTION,
  concurrency: () => ({ mode: 'parallel' }),
  retrySafe: true,
  handler: async (args, context) => {
    const store = context.services?.sessions;
    if (!store) return failure('Session search is not available: this worker has no session store.');
    const currentSessionId = context.sessionId;
    const scope = await searchScope(store, currentSessionId, context.services?.recallScope ?? 'workspace');
    if ('refused' in scope) return failure(scope.refused);
    const sessionId = args.session_id?.trim();
    if (sessionId?.includes('/')) {
      return failure(`Profiles are not supported here: pass the bare session id (the part after '/'), not '${sessionId}'.`);
    }
    const limit = clamp(integer(args.limit) ?? 3, 1, 10);
    if (sessionId && args.around_message_id !== undefined && args.around_message_id !== null) {
      const aroundSeq = integer(args.around_message_id);
      if (aroundSeq === undefined) return failure('scroll requires integer around_message_id');
      const window = clamp(integer(args.window) ?? 5, 1, 20);
      return answer(await scroll(store, { sessionId, aroundSeq, window, currentSessionId, ...scope }));
    }
    if (sessionId) return answer(await read(store, { sessionId, currentSessionId, ...scope }));
    const query = args.query?.trim();
    if (!query) return answer(await browse(store, { limit, currentSessionId, ...scope }));
    const refusal = queryRefusal(query);
    if (refusal) return failure(`Search failed: ${refusal}`);
    const roles = (args.role_filter ?? '')
      .split(',')
      .map((role) => role.trim().toLowerCase())
      .filter((role): role is MessageRole => (SEARCHABLE_ROLES as readonly string[]).includes(role));
    const sort = args.sort === 'newest' || args.sort === 'oldest' ? args.sort : undefined;
    return answer(await discover(store, { query, roles: roles.length ? roles : DEFAULT_ROLES, limit, ...(sort ? { sort } : {}), currentSessionId, ...scope }));
  },
});

/**
 * The folder whose sessions this one may recall: the folder its tree's root started in (and
 * below), unless the worker's `session_search.scope` is `all`. Transcripts hold what tools read,
 * and a session must not read through them what its sandbox keeps from it: another project's
 * files. Not a sub-agent's own start folder: that is where its parent's shell was, which may
 * have left the workspace (`cd /`), while the sandbox still keeps it to the root's.
 */
async function searchScope(store: SessionStore, sessionId: string, scope: RecallScope): Promise<{ within?: string } | { refused: string }> {
  if (scope === 'all') return {};
  let session: SessionRecord | undefined = await store.getSession(sessionId);
  if (!session) return { refused: 'Session search is not available: this session has no record in the session store.' };
  for (let depth = 0; session.parentSessionId !== undefined; depth += 1) {
    const parent: SessionRecord | undefined = depth < MAX_LINEAGE_DEPTH ? await store.getSession(session.parentSessionId) : undefined;
    if (!parent) return { refused: "Session search is not available: the session that started this sub-agent has no record in the session store." };
    session = parent;
  }
  return { within: session.cwd };
}

function failure(message: string): string {
  return toolError(message, { success: false });
}

/** A shape's answer; its failures carry `error` first, like every tool error. */
function answer(result: Record<string, unknown>): string {
  if (result.success === false) return failure(String(result.error));
  return toolResult(result);
}
