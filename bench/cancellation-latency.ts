// Benchmark: how long a running command outlives its session's cancellation (and termination).
// A session runs a marked `sleep 60` through the terminal tool on the local backend; once the
// process shows up, the session is cancelled (or terminated), and the time until the process is
// gone is measured. Prints median and max over RUNS runs each; it does not pass or fail.
//   npx tsx bench/cancellation-latency.ts          (5 runs each)
//   RUNS=10 npx tsx bench/cancellation-latency.ts
import { randomInt } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { loadConfig } from '../src/config/load';
import { silentLogger } from '../src/logging';
import { startScriptedModelServer } from '../src/model/scripted-model-server';
import { SqliteSessionStore } from '../src/store/sqlite-session-store';
import { startDevServer } from '../src/temporal/dev-server';
import { installTemporalRuntime } from '../src/temporal/runtime';
import { startSession } from '../src/temporal/sessions';
import { bundleWorkflows, createHermesWorker } from '../src/temporal/worker';

const RUNS = Math.max(5, Number(process.env.RUNS ?? 5));
const WAIT_LIMIT_MS = 60_000;

/** Whether a live (not zombie) process has exactly this command line. */
function running(commandLine: string): boolean {
  const wanted = `${commandLine.split(' ').join('\0')}\0`;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8') !== wanted) continue;
      if (readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z') return true;
    } catch {
      // Gone while we looked.
    }
  }
  return false;
}

async function until(condition: () => boolean, what: string, intervalMs: number): Promise<void> {
  const deadline = Date.now() + WAIT_LIMIT_MS;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function main(): Promise<void> {
  installTemporalRuntime(silentLogger);
  const home = mkdtempSync(path.join(os.tmpdir(), 'hermes-bench-'));
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'hermes-bench-cwd-'));
  const server = await startDevServer({ headless: true });
  const connection = await Connection.connect({ address: server.address });
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  const client = new Client({ connection });
  const workflowBundle = await bundleWorkflows();
  const results: Record<'cancel' | 'terminate', number[]> = { cancel: [], terminate: [] };
  try {
    for (const mode of ['cancel', 'terminate'] as const) {
      for (let run = 0; run < RUNS; run += 1) {
        const sleep = `sleep 60.${randomInt(100_000, 1_000_000)}`;
        const model = await startScriptedModelServer({ script: { turns: [{ tool_calls: [{ name: 'terminal', arguments: { command: sleep } }] }, { content: 'never' }] } });
        const config = loadConfig({
          env: { HERMES_TEMPORAL_HOME: home, PATH: process.env.PATH },
          projectDir: cwd,
          flags: { model: { name: 'bench', base_url: model.url, api_key: 'bench' }, temporal: { task_queue: `bench-cancel-${process.pid}-${mode}-${run}` } },
        });
        const store = new SqliteSessionStore(config.store.path);
        const worker = await createHermesWorker({ connection: nativeConnection, config, store, logger: silentLogger, workflowBundle });
        try {
          await worker.runUntil(async () => {
            const handle = await startSession(client, { task: `cancellation bench ${mode} ${run}`, config });
            await until(() => running(sleep), 'the command to start', 20);
            const requested = Date.now();
            if (mode === 'cancel') await handle.cancel();
            else await handle.terminate('benchmark');
            await until(() => !running(sleep), 'the command to die', 5);
            results[mode].push(Date.now() - requested);
            await handle.result().catch(() => undefined);
          });
        } finally {
          await store.close();
          await model.close();
        }
      }
    }
  } finally {
    await connection.close();
    await nativeConnection.close();
    await server.stop();
  }
  console.log('hermes-temporal cancellation latency (in-memory dev server, local backend, `sleep 60` in the terminal tool)');
  console.log('  time from the request to the command\'s death');
  for (const mode of ['cancel', 'terminate'] as const) {
    const samples = results[mode];
    console.log(`  ${mode.padEnd(9)}  median ${median(samples)} ms, max ${Math.max(...samples)} ms over ${samples.length} runs (${samples.join(', ')})`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
