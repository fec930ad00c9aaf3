// Which background processes still run, on any backend: in one look where the backend has one,
// else a poll each.
import type { BackgroundProcesses, BackgroundProcessInfo } from '../terminal-environment';

type Poll = (id: string) => Promise<{ info: BackgroundProcessInfo } | undefined>;

export async function runningOf(processes: BackgroundProcesses, ids: readonly string[]): Promise<Set<string>> {
  return processes.running ? processes.running(ids) : runningByPoll(ids, (id) => processes.poll(id, 0));
}

/** The ids whose poll says they run, polled side by side. */
export async function runningByPoll(ids: readonly string[], poll: Poll): Promise<Set<string>> {
  const states = await Promise.all(ids.map(async (id) => ((await poll(id))?.info.status === 'running' ? [id] : [])));
  return new Set(states.flat());
}
