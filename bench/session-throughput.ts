// Benchmark: whole sessions on a real (in-memory) Temporal dev server with the scripted model.
// Prints session latency percentiles and tool-call throughput; it does not pass or fail.
//   npm run bench                      (defaults)
//   SESSIONS=50 CONCURRENCY=10 TOOLS_PER_TURN=8 npm run bench
import { mkdtempSync, writeFileSync } from 'node:fs';
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

const SESSIONS = Number(process.env.SESSIONS ?? 20);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 5);
const TOOLS_PER_TURN = Number(process.env.TOOLS_PER_TURN ?? 4);
const TURNS = Number(process.env.TURNS ?? 3);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

async function main(): Promise<void> {
  installTemporalRuntime(silentLogger);
  const home = mkdtempSync(path.join(os.tmpdir(), 'hermes-bench-'));
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'hermes-bench-cwd-'));
  writeFileSync(path.join(cwd, 'data.txt'), 'line\n'.repeat(100));

  const toolTurn = {
    tool_calls: Array.from({ length: TOOLS_PER_TURN }, (_, index) =>
      index % 2 ? { name: 'terminal', arguments: { command: 'echo ok' } } : { name: 'read_file', arguments: { path: 'data.txt', limit: 10 } },
    ),
  };
  const model = await startScriptedModelServer({ script: { turns: [...Array.from({ length: TURNS }, () => toolTurn), { content: 'done' }] } });
  const server = await startDevServer({ headless: true });
  const config = loadConfig({
    env: { HERMES_TEMPORAL_HOME: home, PATH: process.env.PATH },
    projectDir: cwd,
    flags: { model: { name: 'bench', base_url: model.url, api_key: 'bench' }, session: { max_turns: TURNS + 2 } },
  });
  const store = new SqliteSessionStore(config.store.path);
  const connection = await Connection.connect({ address: server.address });
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  const client = new Client({ connection });
  const bundleStarted = Date.now();
  const workflowBundle = await bundleWorkflows();
  const bundleMs = Date.now() - bundleStarted;
  const worker = await createHermesWorker({ connection: nativeConnection, config, store, logger: silentLogger, workflowBundle });

  const latencies: number[] = [];
  const started = Date.now();
  await worker.runUntil(async () => {
    let next = 0;
    const lane = async () => {
      while (next < SESSIONS) {
        next += 1;
        const begin = Date.now();
        const handle = await startSession(client, { task: `bench session ${next} ${begin}`, config });
        await handle.result();
        latencies.push(Date.now() - begin);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  });
  const wallMs = Date.now() - started;
  latencies.sort((a, b) => a - b);
  const toolCalls = SESSIONS * TURNS * TOOLS_PER_TURN;

  console.log('hermes-temporal session benchmark (in-memory dev server, scripted model, local tools)');
  console.log(`  sessions ${SESSIONS}, concurrency ${CONCURRENCY}, ${TURNS} tool turns x ${TOOLS_PER_TURN} parallel calls each`);
  console.log(`  workflow bundle:        ${bundleMs} ms`);
  console.log(`  wall time:              ${wallMs} ms`);
  console.log(`  sessions/s:             ${(SESSIONS / (wallMs / 1000)).toFixed(2)}`);
  console.log(`  tool calls/s:           ${(toolCalls / (wallMs / 1000)).toFixed(1)}`);
  console.log(`  session latency p50:    ${percentile(latencies, 50)} ms`);
  console.log(`  session latency p95:    ${percentile(latencies, 95)} ms`);
  console.log(`  per turn (p50 / turns): ${(percentile(latencies, 50) / (TURNS + 1)).toFixed(1)} ms`);

  await store.close();
  await nativeConnection.close();
  await connection.close();
  await model.close();
  await server.stop();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
