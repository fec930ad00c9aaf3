// The workspaces of the sessions a worker serves: the folders their sandboxed commands, file
// tools and sandboxed MCP servers write. What the worker runs outside the sandbox (hooks,
// unsandboxed MCP servers) and the user plugins it loads may lie in none of them, whichever
// session's event runs it: one session's hook runs for every session. A workspace stays known
// after its session ends, since what that session planted stays there.

import { OPEN_SESSION_STATUSES, type SessionStore } from '../store/session-store';

/** How many of the newest sessions a starting worker looks through for open ones (a store keeps every session ever run). */
const OPEN_SESSIONS_LOOKED_AT = 1000;

/** Finds a session's workspace (its recorded folder) from its id. */
export type SessionWorkspaceLookup = (sessionId: string) => Promise<string | undefined>;

export class SessionWorkspaces {
  private readonly known = new Set<string>();
  /** Sessions already looked up: a hook runs many times a session, the store is read once. */
  private readonly lookedUp = new Set<string>();

  constructor(
    initial: readonly (string | undefined)[] = [],
    private readonly lookup?: SessionWorkspaceLookup,
  ) {
    for (const workspace of initial) this.add(workspace);
  }

  add(workspace: string | undefined): void {
    if (workspace) this.known.add(workspace);
  }

  list(): string[] {
    return [...this.known];
  }

  /** Every known workspace, `sessionId`'s own among them (looked up once; a failed lookup adds none). */
  async including(sessionId: string | undefined): Promise<string[]> {
    if (sessionId && this.lookup && !this.lookedUp.has(sessionId)) {
      this.add(await this.lookup(sessionId).catch(() => undefined));
      this.lookedUp.add(sessionId);
    }
    return this.list();
  }
}

/**
 * What a worker starting now serves: its own folder, the workspaces of the sessions open in the
 * store (running or waiting for approval), and each session it learns of later.
 */
export async function workspacesServedFrom(ownFolder: string, store: Pick<SessionStore, 'listSessions' | 'getSession'>): Promise<SessionWorkspaces> {
  const open = (await store.listSessions({ limit: OPEN_SESSIONS_LOOKED_AT })).filter((session) => OPEN_SESSION_STATUSES.has(session.status));
  return new SessionWorkspaces([ownFolder, ...open.map((session) => session.cwd)], async (sessionId) => (await store.getSession(sessionId))?.cwd);
}
