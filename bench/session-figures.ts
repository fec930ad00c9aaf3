// Benchmark: what a session costs next to Temporal's own floor, both measured in this run on the
// same in-memory dev server (bench/floor/: the same shapes with trivial activities).
//   - per turn: a model call plus one cheap tool call, vs two trivial activity round trips; the
//     cheap call is a `read_file` (no process) and, apart, a terminal `true` (one sandboxed process);
//   - parallel terminal: CALLS `sleep 1` calls in one turn vs one such call, vs CALLS
//     one-second activities at once vs one.
// Prints figures and ratios; no pass/fail.   npx tsx bench/session-figures.ts
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { loadConfig, type LoadedConfig } from '../src/config/load';
import { silentLogger } from '../src/logging';
import type { ModelScriptInput } from '../src/model/model-script';
import { startScriptedModelServer, type ScriptedModelServer } from '../src/model/scripted-model-server';
import { SqliteSessionStore } from '../src/store/sqlite-session-store';
import { startDevServer } from '../src/temporal/dev-server';
import { installTemporalRuntime } from '../src/temporal/runtime';
import { startSession } from '../src/temporal/sessions';
import { bundleWorkflows, createHermesWorker } from '../src/temporal/worker';
import { floorActivities } from './floor/floor-activities';

const CALLS = Number(process.env.CALLS ?? 16);
const TURNS = Number(process.env.TURNS ?? 10);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const FLOOR_QUEUE = 'hermes-bench-floor';

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function medianMs(run: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const started = process.hrtime.bigint();
    await run();
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return median(times);
}

const terminalCall = (command: string) => ({ name: 'terminal', arguments: { command } });

async function main(): Promise<void> {
  installTemporalRuntime(silentLogger);
  const home = mkdtempSync(path.join(os.tmpdir(), 'hermes-bench-figures-'));
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'hermes-bench-figures-cwd-'));
  writeFileSync(path.join(cwd, 'notes.txt'), 'a short file\n');
  const models: ScriptedModelServer[] = [];
  const server = await startDevServer({ headless: true });
  const connection = await Connection.connect({ address: server.address });
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  const client = new Client({ connection });
  // SANDBOX=off shows what the sandbox adds to a call (bubblewrap's namespaces and mounts).
  const baseConfig = loadConfig({
    env: { HERMES_TEMPORAL_HOME: home, PATH: process.env.PATH },
    projectDir: cwd,
    flags: { session: { max_turns: TURNS + 5 }, ...(process.env.SANDBOX === 'off' ? { terminal: { local: { sandbox: 'off' } } } : {}) },
  });
  const store = new SqliteSessionStore(baseConfig.store.path);

  /** A config whose model replays `script`. */
  const scripted = async (script: ModelScriptInput): Promise<LoadedConfig> => {
    const model = await startScriptedModelServer({ script });
    models.push(model);
    return { ...baseConfig, model: { ...baseConfig.model, name: 'bench', base_url: model.url, api_key: 'bench' } };
  };
  const session = (config: LoadedConfig) => async () => {
    const handle = await startSession(client, { task: `bench ${Date.now()}`, config });
    const result = await handle.result();
    if (result.status !== 'completed') throw new Error(`bench session ended ${result.status}: ${result.reason ?? ''}`);
  };
  const floor = (workflow: 'floorTurns' | 'floorParallel', arg: number) => () =>
    client.workflow.execute(workflow, { taskQueue: FLOOR_QUEUE, workflowId: `floor-${workflow}-${Date.now()}-${Math.random()}`, args: [arg] });

  const sandbox = baseConfig.terminal.local.sandbox;
  try {
    // Each side runs with only its own worker polling, as a deployment's worker would.
    const floorWorker = await Worker.create({
      connection: nativeConnection,
      taskQueue: FLOOR_QUEUE,
      workflowsPath: require.resolve('./floor/floor-workflows'),
      activities: floorActivities,
    });
    const floorFigures = await floorWorker.runUntil(async () => {
      await floor('floorTurns', TURNS)(); // warm up
      return {
        turn: ((await medianMs(floor('floorTurns', TURNS))) - (await medianMs(floor('floorTurns', 0)))) / TURNS,
        one: await medianMs(floor('floorParallel', 1)),
        many: await medianMs(floor('floorParallel', CALLS)),
      };
    });

    const hermes = await createHermesWorker({ connection: nativeConnection, config: baseConfig, store, logger: silentLogger, workflowBundle: await bundleWorkflows() });
    await hermes.runUntil(async () => {
      const answerOnly = await scripted({ turns: [{ content: 'done' }] });
      const cheapTurns = await scripted({ turns: [...Array.from({ length: TURNS }, () => ({ tool_calls: [terminalCall('true')] })), { content: 'done' }] });
      const readTurns = await scripted({
        turns: [...Array.from({ length: TURNS }, () => ({ tool_calls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] })), { content: 'done' }],
      });
      const oneSleep = await scripted({ turns: [{ tool_calls: [terminalCall('sleep 1')] }, { content: 'done' }] });
      const manySleeps = await scripted({ turns: [{ tool_calls: Array.from({ length: CALLS }, () => terminalCall('sleep 1')) }, { content: 'done' }] });
      await session(cheapTurns)(); // warm up: bundle caches, sandbox probe, first connections

      const answerOnlyMs = await medianMs(session(answerOnly));
      const turn = ((await medianMs(session(cheapTurns))) - answerOnlyMs) / TURNS;
      const readTurn = ((await medianMs(session(readTurns))) - answerOnlyMs) / TURNS;
      const one = await medianMs(session(oneSleep));
      const many = await medianMs(session(manySleeps));

      const floorTurn = floorFigures.turn;
      console.log(`Session figures vs Temporal's floor, same dev server, same run (median of ${ROUNDS}; ${os.cpus().length} cores, ${os.cpus()[0]?.model ?? 'unknown CPU'})`);
      console.log(`  per turn (model call + one \`read_file\`): ${readTurn.toFixed(0)} ms; floor (two trivial activities): ${floorTurn.toFixed(0)} ms: ${(readTurn / floorTurn).toFixed(2)}x floor (goal 1.3x)`);
      console.log(`  per turn (model call + one terminal \`true\`, a sandboxed process): ${turn.toFixed(0)} ms: ${(turn / floorTurn).toFixed(2)}x floor`);
      console.log(
        `  parallel terminal, ${CALLS} x \`sleep 1\` in one turn vs one (sandbox ${sandbox}): ${(many / one).toFixed(2)}x; ` +
          `floor, ${CALLS} one-second activities vs one: ${(floorFigures.many / floorFigures.one).toFixed(2)}x (goal 1.15x)`,
      );
    });
  } finally {
    await store.close();
    await Promise.all(models.map((model) => model.close()));
    await nativeConnection.close();
    await connection.close();
    await server.stop();
    rmSync(home, { recursive: true, force: true });
    rmSync(cwd, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
