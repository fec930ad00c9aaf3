// Benchmark: N terminal calls of `sleep 1` at once on the local backend (sandboxed as configured),
// as a ratio to one such call, next to two floors: N bare spawns of `sleep 1` from this process,
// and N bare spawns of the same sandbox command the backend runs (what the kernel's namespaces
// and mounts cost when N start at once). A ratio near the sandbox's floor means the backend's own
// per-call work does not queue the calls.
//   npx tsx bench/parallel-terminal.ts          (CALLS=16, ROUNDS=3)
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LocalEnvironment } from '../src/environments/local-environment';

const CALLS = Number(process.env.CALLS ?? 16);
const ROUNDS = Number(process.env.ROUNDS ?? 3);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await run();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

function bareSpawn(file: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: 'ignore', detached: true });
    child.once('error', reject);
    child.once('exit', () => resolve());
  });
}

async function ratio(once: () => Promise<unknown>): Promise<{ one: number; many: number }> {
  const one = median(await sequence(ROUNDS, () => timed(once)));
  const many = median(await sequence(ROUNDS, () => timed(() => Promise.all(Array.from({ length: CALLS }, once)))));
  return { one, many };
}

async function sequence<T>(count: number, step: () => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  for (let index = 0; index < count; index++) results.push(await step());
  return results;
}

async function main(): Promise<void> {
  const workspace = mkdtempSync(path.join(os.tmpdir(), 'hermes-bench-parallel-'));
  try {
    const environment = new LocalEnvironment({ backend: 'local', cwd: workspace, sessionId: 'bench-parallel' });
    const probe = await environment.exec({ command: 'true', cwd: workspace, timeoutMs: 30_000 });
    if (probe.exitCode !== 0) throw new Error(`the local backend cannot run commands here: ${probe.output}`);
    const floor = await ratio(() => bareSpawn('sleep', ['1']));
    const sandboxed = environment.sandbox.command('sleep 1', { workspace, cwd: workspace, sessionKey: 'bench-parallel' });
    const sandboxFloor = await ratio(() => bareSpawn(sandboxed.file, sandboxed.args));
    const local = await ratio(() => environment.exec({ command: 'sleep 1', cwd: workspace, timeoutMs: 30_000, id: `bench-${Math.random()}` }));
    console.log(`Parallel terminal calls: ${CALLS} x \`sleep 1\` at once vs one, median of ${ROUNDS} (${os.cpus().length} cores)`);
    console.log(`  floor: bare spawns from this process  one ${floor.one.toFixed(0)} ms, ${CALLS} at once ${floor.many.toFixed(0)} ms: ${(floor.many / floor.one).toFixed(2)}x`);
    console.log(`  floor: the same sandbox, bare spawns   one ${sandboxFloor.one.toFixed(0)} ms, ${CALLS} at once ${sandboxFloor.many.toFixed(0)} ms: ${(sandboxFloor.many / sandboxFloor.one).toFixed(2)}x`);
    console.log(
      `  local backend (${environment.sandbox.state().summary ?? 'sandbox'})`.slice(0, 90) +
        `\n    one ${local.one.toFixed(0)} ms, ${CALLS} at once ${local.many.toFixed(0)} ms: ${(local.many / local.one).toFixed(2)}x (goal 1.15x)`,
    );
    await environment.release();
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
