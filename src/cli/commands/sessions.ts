// `hermes-temporal sessions` and `hermes-temporal show <sessionId>`: read from the session store,
// with live status from Temporal when a server is configured.
import type { Command } from 'commander';
import { loadConfig } from '../../config/load';
import type { SessionRecord, StoredMessage } from '../../store/session-store';
import { createSessionStore, describeSessionStore } from '../../store/create-session-store';
import { connectTemporal } from '../../temporal/connection';
import { workflowIdFor } from '../../temporal/sessions';
import { statusQuery } from '../../workflows/messages';

export function registerSessionCommands(program: Command): void {
  program
    .command('sessions')
    .description('List recent sessions')
    .option('--limit <n>', 'how many', '20')
    .option('--json', 'print JSON')
    .action(async (flags: { limit: string; json?: boolean }) => {
      const store = createSessionStore(loadConfig());
      try {
        const sessions = await store.listSessions({ limit: Number(flags.limit) || 20 });
        if (flags.json) return console.log(JSON.stringify(sessions, null, 2));
        if (!sessions.length) return console.log('No sessions yet. Start one with: hermes-temporal run "<task>"');
        for (const session of sessions) console.log(sessionLine(session));
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
        const session = await store.getSession(sessionId);
        if (!session) {
          console.error(`No session '${sessionId}' in ${describeSessionStore(config)}`);
          process.exitCode = 1;
          return;
        }
        const messages = await store.getMessages(sessionId);
        const live = config.temporal.address ? await liveStatus(sessionId) : undefined;
        if (flags.json) return console.log(JSON.stringify({ session, live, messages }, null, 2));
        console.log(sessionLine(session));
        console.log(`  workflow ${session.workflowId}, cwd ${session.cwd}, ${session.toolNames.length} tools`);
        if (live) console.log(`  live: ${live}`);
        if (session.error) console.log(`  error: ${session.error}`);
        for (const message of messages) console.log(formatMessage(message));
      } finally {
        await store.close();
      }
    });
}

const LIVE_STATUS_TIMEOUT_MS = 3000;

async function liveStatus(sessionId: string): Promise<string | undefined> {
  try {
    const connection = await connectTemporal(loadConfig(), { allowEmbedded: false });
    try {
      const handle = connection.client.workflow.getHandle(workflowIdFor(sessionId));
      // A query needs a worker polling the session's task queue; a closed workflow (or one no
      // worker serves) would hold the query until the server gives up, so ask only running
      // workflows, and briefly.
      const description = await handle.describe();
      if (description.status.name !== 'RUNNING') return description.status.name.toLowerCase();
      const status = await connection.client.connection.withDeadline(Date.now() + LIVE_STATUS_TIMEOUT_MS, () => handle.query(statusQuery));
      return `${status.status}, turn ${status.turn}/${status.maxTurns}, ${status.toolCalls} tool calls`;
    } finally {
      await connection.close();
    }
  } catch (error) {
    return `unavailable (${(error as Error).message.split('\n')[0]})`;
  }
}

function sessionLine(session: SessionRecord): string {
  const task = session.task.replace(/\s+/g, ' ');
  return `${session.sessionId}  ${session.status.padEnd(10)} ${session.createdAt}  ${session.model}  ${task.length > 70 ? `${task.slice(0, 69)}…` : task}`;
}

function formatMessage(message: StoredMessage): string {
  const head = `\n[${message.seq}] ${message.role}${message.name ? ` (${message.name})` : ''}`;
  const calls = (message.toolCalls ?? []).map((call) => `  → ${call.name}(${call.arguments})`).join('\n');
  return [head, message.content ?? '', calls].filter(Boolean).join('\n');
}
