// Benchmark: delegate_task fan-out on a real (in-memory) Temporal dev server with the scripted
// model. A root delegates CHILDREN sub-agents of TURNS turns each (a terminal call per turn but
// the last); the wall time is printed as a ratio to one session of the same TURNS turns, measured
// in the same run, with the parent's history size. It does not pass or fail.
//   npx tsx bench/fan-out.ts            CHILDREN=32 TURNS=3 REPEATS=2 npx tsx bench/fan-out.ts
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { NativeConnection } from '@temporalio/worker';
import { loadConfig } from '../src/config/load';
import { silentLogger } from '../src/logging';
import { startScriptedModelServer } from '../src/model/scripted-model-server';
import { SqliteSessionStore } from '../src/store/sqlite-session-store';
import { startDevServer } from '../src/temporal/dev-server';
import { installTemporalRuntime } from '../src/temporal/runtime';
import { startSession } from '../src/temporal/sessions';
import { bundleWorkflows, createHermesWorker } from '../src/temporal/worker';

const CHILDREN = Number(process.env.CHILDREN ?? 32);
const TURNS = Number(process.env.TURNS ?? 3);
const REPEATS = Number(process.env.REPEATS ?? 2);

async function main(): Promise<void> {
  installTemporalRuntime(silentLogger);
  const home = mkdtempSync(path.join(os.tmpdir(), 'hermes-bench-fan-'));
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'hermes-bench-fan-cwd-'));
  const childTurns = [...Array.from({ length: TURNS - 1 }, (_, turn) => ({ tool_calls: [{ name: 'terminal', arguments: { command: `echo turn-${turn}` } }] })), { content: 'child done' }];
  const model = await startScriptedModelServer({
    script: {
      turns: [
        { tool_calls: [{ name: 'delegate_task', arguments: { tasks: Array.from({ length: CHILDREN }, (_, index) => ({ goal: `worker-${index}: do a small job` })) } }] },
        ...Array.from({ length: CHILDREN + 1 }, () => ({ content: 'all children reported' })),
      ],
      agents: [{ match: 'worker-', turns: childTurns }, { match: 'single:', turns: childTurns }],
    },
  });
  const server = await startDevServer({ headless: true });
  const config = loadConfig({
    env: { HERMES_TEMPORAL_HOME: home, PATH: process.env.PATH },
    projectDir: cwd,
    flags: {
      model: { name: 'bench', base_url: model.url, api_key: 'bench' },
      session: { max_turns: CHILDREN + 5 },
      delegation: { max_concurrent_children: CHILDREN },
    },
  });
  const store = new SqliteSessionStore(config.store.path);
  const connection = await Connection.connect({ address: server.address });
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  const client = new Client({ connection });
  const worker = await createHermesWorker({ connection: nativeConnection, config, store, logger: silentLogger, workflowBundle: await bundleWorkflows() });

  const timed = async (task: string) => {
    const started = performance.now();
    const handle = await startSession(client, { task, config });
    const result = await handle.result();
    if (result.status !== 'completed') throw new Error(`${task}: ${result.status}`);
    return { ms: performance.now() - started, handle };
  };

  const single: number[] = [];
  const independent: number[] = [];
  const fanOut: number[] = [];
  let historyBytes = 0;
  let historyEvents = 0;
  await worker.runUntil(async () => {
    await timed('single: warm-up');
    for (let repeat = 0; repeat < REPEATS; repeat += 1) {
      single.push((await timed(`single: one session of ${TURNS} turns`)).ms);
      const together = performance.now();
      await Promise.all(Array.from({ length: CHILDREN }, (_, index) => timed(`single: independent session ${index}`)));
      independent.push(performance.now() - together);
      const { ms, handle } = await timed(`root: fan out to ${CHILDREN}`);
      fanOut.push(ms);
      const history = await handle.fetchHistory();
      historyBytes = temporal.api.history.v1.History.encode(history).finish().length;
      historyEvents = history.events?.length ?? 0;
    }
  });
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  const one = median(single);
  const all = median(fanOut);
  console.log(`fan-out: ${CHILDREN} sub-agents x ${TURNS} turns on ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'cpu'})`);
  console.log(`  one session of ${TURNS} turns (floor): ${one.toFixed(0)} ms`);
  console.log(`  ${CHILDREN} independent sessions at once:  ${median(independent).toFixed(0)} ms  = ${(median(independent) / one).toFixed(2)}x (this machine's floor for ${CHILDREN} sessions, no delegation)`);
  console.log(`  root + ${CHILDREN} children:          ${all.toFixed(0)} ms  = ${(all / one).toFixed(2)}x one child (goal <= 3x), ${(all / median(independent)).toFixed(2)}x the independent sessions`);
  console.log(`  parent history: ${historyEvents} events, ${(historyBytes / 1024).toFixed(1)} KB (${(historyBytes / CHILDREN).toFixed(0)} bytes per child)`);
  await store.close();
  await connection.close();
  await nativeConnection.close();
  await model.close();
  await server.stop();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
