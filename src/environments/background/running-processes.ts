// Which background processes still run, on any backend: in one look where the backend has one,
// else a poll each.
import type { BackgroundProcesses } from '../terminal-environment';

export async function runningOf(processes: BackgroundProcesses, ids: readonly string[]): Promise<Set<string>> {
  if (processes.running) return processes.running(ids);
  const states = await Promise.all(ids.map(async (id) => ((await processes.poll(id, 0))?.info.status === 'running' ? [id] : [])));
  return new Set(states.flat());
}
