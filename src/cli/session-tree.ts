// Sessions as the tree delegation makes of them: each sub-agent under its parent, with its depth.
import type { SessionRecord } from '../store/session-store';

export interface TreeRow {
  session: SessionRecord;
  depth: number;
}

/** Parents first, each followed by its children (oldest first); orphans (parent not listed) are roots. */
export function sessionTree(sessions: readonly SessionRecord[]): TreeRow[] {
  const byId = new Map(sessions.map((session) => [session.sessionId, session]));
  const children = new Map<string, SessionRecord[]>();
  const roots: SessionRecord[] = [];
  for (const session of sessions) {
    const parent = session.parentSessionId;
    if (parent && byId.has(parent) && parent !== session.sessionId) {
      const list = children.get(parent) ?? [];
      list.push(session);
      children.set(parent, list);
    } else roots.push(session);
  }
  const rows: TreeRow[] = [];
  const seen = new Set<string>();
  const visit = (session: SessionRecord, depth: number) => {
    if (seen.has(session.sessionId)) return;
    seen.add(session.sessionId);
    rows.push({ session, depth });
    const kids = [...(children.get(session.sessionId) ?? [])].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    for (const child of kids) visit(child, depth + 1);
  };
  for (const root of roots) visit(root, 0);
  return rows;
}

/** The session's parent, its parent's parent, ... as far as `sessions` knows them (bounded). */
function* ancestorsOf(session: SessionRecord, sessions: readonly SessionRecord[]): Generator<string> {
  const byId = new Map(sessions.map((candidate) => [candidate.sessionId, candidate]));
  let parent = session.parentSessionId;
  for (let steps = 0; parent && steps < 100; steps += 1) {
    yield parent;
    parent = byId.get(parent)?.parentSessionId;
  }
}

/** How deep a session sits: 0 for a root, counting parents found in `sessions`. */
export function depthOf(session: SessionRecord, sessions: readonly SessionRecord[]): number {
  return [...ancestorsOf(session, sessions)].length;
}

/** Whether `session` descends from `ancestorId`. */
export function isBelow(session: SessionRecord, ancestorId: string, sessions: readonly SessionRecord[]): boolean {
  return [...ancestorsOf(session, sessions)].includes(ancestorId);
}
