// Run by the watcher a `run` on an embedded server leaves behind (abandoned-run.ts) when that
// `run` ended without saying so: it was killed, or crashed. Its server went with it, so no worker
// will finish the session: stop what the session left running on this machine, and record it.
//   node reap-abandoned-run.js <sessionId> <backend> <claim file>     (store settings in HERMES_ABANDONED_RUN_STORE)
import { rmSync } from 'node:fs';
import type { LoadedConfig } from '../config/load';
import { createSessionStore } from '../store/create-session-store';
import { abandonSession, REAPER_STORE_VARIABLE } from './abandoned-run';

const REASON =
  'Abandoned: hermes-temporal run ended without stopping the session (it was killed or crashed), and the Temporal server it had started stopped with it';

async function reap(sessionId: string, backend: string, claim: string, store: LoadedConfig['store']): Promise<void> {
  const sessions = createSessionStore({ store });
  try {
    await abandonSession(sessions, { sessionId, backend }, REASON);
    rmSync(claim, { force: true });
  } finally {
    await sessions.close();
  }
}

const [sessionId, backend, claim] = process.argv.slice(2);
const store = JSON.parse(process.env[REAPER_STORE_VARIABLE] ?? 'null') as LoadedConfig['store'] | null;
if (!sessionId || !backend || !claim || !store) {
  console.error('usage: reap-abandoned-run <sessionId> <backend> <claim file>, with the store settings in HERMES_ABANDONED_RUN_STORE');
  process.exit(2);
}
reap(sessionId, backend, claim, store).then(
  () => process.exit(0),
  () => process.exit(1),
);
