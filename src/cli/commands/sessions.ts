// `hermes-temporal sessions` and `hermes-temporal show <sessionId>`: read from the session store,
// with live status from Temporal when a server is configured.
import type { Command } from 'commander';
import { visibleText } from '../../approval-signals/visible-text';
import { oneLine, QUOTED_LINE_MARK } from '../../approval-signals/shown-call';
import { loadConfig, type LoadedConfig } from '../../config/load';
import { OPEN_SESSION_STATUSES, type SessionRecord, type SessionStore, type StoredMessage } from '../../store/session-store';
import { createSessionStore, describeSessionStore } from '../../store/create-session-store';
import { connectTemporalClient, findRunningDevServer, type TemporalClientConnection } from '../../temporal/connection';
import { syncSessionStatuses } from '../../temporal/session-status-sync';
import { workflowIdFor } from '../../temporal/sessions';
import { statusQuery } from '../../workflows/messages';
import { depthOf, isBelow, sessionTree } from '../session-tree';
import { plural } from '../plural';
import { settleOrphanedRuns } from '../abandoned-run';

/** `--limit` as asked: 0 or a word listed the default 20 and -1 every session, without a word. */
function sessionLimit(flag: string): number {
  if (!/^\d+$/.test(flag) || !Number.isSafeInteger(Number(flag)) || Number(flag) < 1) throw new Error(`--limit must be a whole number above 0, not '${flag}'`);
  return Number(flag);
}

export function registerSessionCommands(program: Command): void {
  program
    .command('sessions')
    .description('List recent sessions')
    .option('--limit <n>', 'how many', '20')
    .option('--json', 'print JSON')
    .action(async (flags: { limit: string; json?: boolean }) => {
      const limit = sessionLimit(flags.limit);
      const config = loadConfig();
      const store = createSessionStore(config);
      try {
        await settleOrphanedRuns(config.home, store);
        const sessions = await reconciled(config, store, await store.listSessions({ limit }));
        if (flags.json) return console.log(JSON.stringify(sessions, null, 2));
        if (!sessions.length) return console.log('No sessions yet. Start one with: hermes-temporal run "<task>"');
        const rows = sessionTree(sessions);
        const idWidth = Math.max('SESSION'.length, ...rows.map((row) => indentOf(row.depth).length + row.session.sessionId.length));
        const modelWidth = Math.max('MODEL'.length, ...sessions.map((session) => session.model.length));
        console.log(`${'SESSION'.padEnd(idWidth)}  ${'STATUS'.padEnd(10)} ${'CREATED'.padEnd(24)}  ${'MODEL'.padEnd(modelWidth)}  TASK`);
        // Sub-agents appear under the session that delegated to them.
        for (const row of rows) console.log(sessionLine(row.session, { depth: row.depth, idWidth, modelWidth }));
      } finally {
        await store.close();
      }
    });

  program
    .command('show')
    .description("Show a session's record and transcript")
    .argument('<sessionId>')
    .option('--json', 'print JSON')
    .action(async (sessionId: string, flags: { json?: boolean }) => {
      const config = loadConfig();
      const store = createSessionStore(config);
      try {
        await settleOrphanedRuns(config.home, store);
        const stored = await store.getSession(sessionId);
        const session = stored && (await reconciled(config, store, [stored]))[0];
        if (!session) {
          // A workflow without a record: the store was deleted, replaced or is another one.
          const workflow = knowsServer(config) ? await liveStatus(sessionId) : undefined;
          const known = workflow && !workflow.startsWith('unavailable') ? `; Temporal has its workflow ${workflowIdFor(sessionId)} (${workflow}), so this store lost or never had its record` : '';
          console.error(`No session '${sessionId}' in ${describeSessionStore(config)}${known}`);
          process.exitCode = 1;
          return;
        }
        const messages = await store.getMessages(sessionId);
        const live = knowsServer(config) ? await liveStatus(sessionId) : undefined;
        if (flags.json) {
          const family = await store.listSessions({ limit: 1000 });
          const subagents = family.filter((candidate) => isBelow(candidate, sessionId, family)).map((candidate) => ({ sessionId: candidate.sessionId, parentSessionId: candidate.parentSessionId, depth: depthOf(candidate, family), status: candidate.status, task: candidate.task }));
          return console.log(JSON.stringify({ session, depth: depthOf(session, family), subagents, live, messages }, null, 2));
        }
        const family = await store.listSessions({ limit: 1000 });
        const children = family.filter((candidate) => candidate.parentSessionId === sessionId);
        console.log(sessionLine(session));
        const callsMade = messages.reduce((count, message) => count + (message.toolCalls?.length ?? 0), 0);
        console.log(`  workflow ${session.workflowId}, cwd ${session.cwd}, ${plural(session.toolNames.length, 'tool')} available, ${plural(callsMade, 'tool call')} made`);
        if (session.parentSessionId) console.log(`  sub-agent of ${session.parentSessionId} (depth ${depthOf(session, family)})`);
        if (children.length) {
          console.log(`  sub-agents (${children.length}):`);
          for (const row of sessionTree(family).filter((entry) => isBelow(entry.session, sessionId, family))) {
            console.log(`  ${sessionLine(row.session, { depth: row.depth - depthOf(session, family) - 1 })}`);
          }
        }
        if (live) console.log(`  live: ${live}`);
        if (session.error) console.log(`  error: ${oneLine(session.error)}`);
        for (const message of messages) console.log(formatMessage(message));
      } finally {
        await store.close();
      }
    });
}

const LIVE_STATUS_TIMEOUT_MS = 3000;
const STATUS_SYNC_TIMEOUT_MS = 5000;

/**
 * Records still `running` whose workflow ended without writing its end (terminated, timed out,
 * failed on a store fault) take the status Temporal knows. Without a server, they stay as stored.
 */
async function reconciled(config: LoadedConfig, store: SessionStore, sessions: SessionRecord[]): Promise<SessionRecord[]> {
  if (!knowsServer(config) || !sessions.some((session) => OPEN_SESSION_STATUSES.has(session.status))) return sessions;
  let connection: TemporalClientConnection | undefined;
  try {
    connection = await connectTemporalClient(config, { connectTimeoutMs: STATUS_SYNC_TIMEOUT_MS });
    return await syncSessionStatuses(connection.client, store, sessions, { timeoutMs: STATUS_SYNC_TIMEOUT_MS });
  } catch {
    return sessions;
  } finally {
    await connection?.close();
  }
}

/** TEMPORAL_ADDRESS, or the running `hermes-temporal dev` of this home (as connectTemporalClient finds it). */
function knowsServer(config: LoadedConfig): boolean {
  return Boolean(config.temporal.address || findRunningDevServer(config.home));
}

async function liveStatus(sessionId: string): Promise<string | undefined> {
  try {
    const connection = await connectTemporalClient(loadConfig(), { connectTimeoutMs: LIVE_STATUS_TIMEOUT_MS });
    try {
      const handle = connection.client.workflow.getHandle(workflowIdFor(sessionId));
      // A query needs a worker polling the session's task queue; a closed workflow (or one no
      // worker serves) would hold the query until the server gives up, so ask only running
      // workflows, and briefly.
      const description = await handle.describe();
      if (description.status.name !== 'RUNNING') return description.status.name.toLowerCase();
      const status = await connection.client.connection.withDeadline(Date.now() + LIVE_STATUS_TIMEOUT_MS, () => handle.query(statusQuery));
      const children = status.children ?? [];
      const running = children.filter((child) => child.status === 'running' || child.status === 'queued').length;
      const waiting = (status.descendantApprovals ?? []).map((entry) => entry.sessionId);
      return [
        `${status.status}, turn ${status.turn}/${status.maxTurns}, ${status.toolCalls} tool calls`,
        ...(children.length ? [`${children.length} sub-agents (${running} running)`] : []),
        ...(waiting.length ? [`sub-agents awaiting approval: ${waiting.join(', ')}`] : []),
        ...(status.todos?.length ? [`plan: ${status.todos.filter((item) => item.status === 'completed').length}/${status.todos.length} done`] : []),
      ].join(', ');
    } finally {
      await connection.close();
    }
  } catch (error) {
    return `unavailable (${(error as Error).message.split('\n')[0]})`;
  }
}

function sessionLine(session: SessionRecord, layout: { depth?: number; idWidth?: number; modelWidth?: number } = {}): string {
  // A sub-agent's task is a model's text: shown, never interpreted by the terminal.
  const task = visibleText(session.task.replace(/\s+/g, ' '));
  const id = `${indentOf(layout.depth ?? 0)}${session.sessionId}`;
  return `${id.padEnd(layout.idWidth ?? id.length)}  ${session.status.padEnd(10)} ${session.createdAt}  ${session.model.padEnd(layout.modelWidth ?? session.model.length)}  ${task.length > 70 ? `${task.slice(0, 69)}…` : task}`;
}

function indentOf(depth: number): string {
  return depth > 0 ? `${'  '.repeat(depth - 1)}└ ` : '';
}


/**
 * One stored message for people: the runtime's header and call lines, and the message's text with
 * every line marked, so no line a model wrote (`[9] user`, `  → terminal(...)`) passes for either.
 * Shown, never interpreted by the terminal.
 */
export function formatMessage(message: StoredMessage): string {
  const head = `\n[${message.seq}] ${message.role}${message.name ? ` (${oneLine(message.name)})` : ''}`;
  const content = message.content ? visibleText(message.content).split('\n').map((line) => `${QUOTED_LINE_MARK}${line}`) : [];
  const calls = (message.toolCalls ?? []).map((call) => `  → ${oneLine(call.name)}(${oneLine(call.arguments)})`);
  return [head, ...content, ...calls].join('\n');
}
