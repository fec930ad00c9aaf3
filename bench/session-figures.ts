// Benchmark: what a session costs next to Temporal's own floor, both measured in this run on the
// same in-memory dev server (bench/floor/: the same shapes with trivial activities).
//   - per turn: a model call plus one cheap tool call, vs two trivial activity round trips, and vs
//     a bare request to the same model process plus a trivial activity (what the model's HTTP round
//     trip costs in a worker); the cheap call is a `read_file` (no process) and, apart, a terminal
//     `true` (one sandboxed process);
//   - parallel terminal: CALLS `sleep 1` calls in one turn vs one such call, vs CALLS
//     one-second activities at once vs one;
//   - CPU per turn, of the worker process and of the dev server, next to the floor's.
// Prints figures and ratios; no pass/fail.   npx tsx bench/session-figures.ts
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { loadConfig, type LoadedConfig } from '../src/config/load';
import { silentLogger } from '../src/logging';
import type { ModelScriptInput } from '../src/model/model-script';
import { SqliteSessionStore } from '../src/store/sqlite-session-store';
import { startDevServer } from '../src/temporal/dev-server';
import { installTemporalRuntime } from '../src/temporal/runtime';
import { startSession } from '../src/temporal/sessions';
import { bundleWorkflows, createHermesWorker } from '../src/temporal/worker';
import { floorActivities } from './floor/floor-activities';
import { startScriptedModelProcess, type ModelProcess } from './model-process';
import { cpuSecondsOf, serverPid, workerCpuSeconds } from './process-stats';

const CALLS = Number(process.env.CALLS ?? 16);
const TURNS = Number(process.env.TURNS ?? 20);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const FLOOR_QUEUE = 'hermes-bench-floor';

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  return (await measured(run)).ms;
}

/** Wall time and CPU time, of this process (both workers, the client) and of the dev server, in ms. */
interface Cost {
  ms: number;
  workerCpuMs: number;
  serverCpuMs: number;
}

let devServerPid: number | undefined;
const cpuMs = (pid: number | undefined) => (pid ? cpuSecondsOf(pid) * 1000 : NaN);
const workerCpuMs = () => workerCpuSeconds(process.pid) * 1000;

async function measured(run: () => Promise<unknown>): Promise<Cost> {
  const [worker, server] = [workerCpuMs(), cpuMs(devServerPid)];
  const started = process.hrtime.bigint();
  await run();
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  return { ms, workerCpuMs: workerCpuMs() - worker, serverCpuMs: cpuMs(devServerPid) - server };
}

const total = (cost: Cost) => cost.workerCpuMs + cost.serverCpuMs;

/** What each of `turns` turns added to a run over the same run without them. */
const perTurn = (run: Cost, without: Cost, turns: number): Cost => ({
  ms: (run.ms - without.ms) / turns,
  workerCpuMs: (run.workerCpuMs - without.workerCpuMs) / turns,
  serverCpuMs: (run.serverCpuMs - without.serverCpuMs) / turns,
});

const terminalCall = (command: string) => ({ name: 'terminal', arguments: { command } });

async function main(): Promise<void> {
  installTemporalRuntime(silentLogger);
  const home = mkdtempSync(path.join(os.tmpdir(), 'hermes-bench-figures-'));
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'hermes-bench-figures-cwd-'));
  writeFileSync(path.join(cwd, 'notes.txt'), 'a short file\n');
  const models: ModelProcess[] = [];
  const server = await startDevServer({ headless: true });
  devServerPid = serverPid(server.address);
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

  /** A config whose model, in a process of its own, replays `script`. */
  const scripted = async (script: ModelScriptInput): Promise<LoadedConfig> => {
    const model = await startScriptedModelProcess(script);
    models.push(model);
    return { ...baseConfig, model: { ...baseConfig.model, name: 'bench', base_url: model.url, api_key: 'bench' } };
  };
  const session = (config: LoadedConfig) => async () => {
    const handle = await startSession(client, { task: `bench ${Date.now()}`, config });
    const result = await handle.result();
    if (result.status !== 'completed') throw new Error(`bench session ended ${result.status}: ${result.reason ?? ''}`);
  };
  const floor = (workflow: 'floorTurns' | 'floorParallel' | 'floorModelTurns', ...args: [number] | [number, string]) => () =>
    client.workflow.execute(workflow, { taskQueue: FLOOR_QUEUE, workflowId: `floor-${workflow}-${Date.now()}-${Math.random()}`, args });

  const sandbox = baseConfig.terminal.local.sandbox;
  try {
    // Floor and sessions alternate, round by round, each on its own worker and task queue: the
    // machine's drift (another process, the server's compactions) then reaches both sides alike,
    // and each round's ratio compares like with like.
    const floorWorker = await Worker.create({
      connection: nativeConnection,
      taskQueue: FLOOR_QUEUE,
      workflowsPath: require.resolve('./floor/floor-workflows'),
      activities: floorActivities,
    });
    const hermes = await createHermesWorker({ connection: nativeConnection, config: baseConfig, store, logger: silentLogger, workflowBundle: await bundleWorkflows() });
    await floorWorker.runUntil(() =>
      hermes.runUntil(async () => {
        const answerOnly = await scripted({ turns: [{ content: 'done' }] });
        const cheapTurns = await scripted({ turns: [...Array.from({ length: TURNS }, () => ({ tool_calls: [terminalCall('true')] })), { content: 'done' }] });
        const readTurns = await scripted({
          turns: [...Array.from({ length: TURNS }, () => ({ tool_calls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] })), { content: 'done' }],
        });
        const oneSleep = await scripted({ turns: [{ tool_calls: [terminalCall('sleep 1')] }, { content: 'done' }] });
        const manySleeps = await scripted({ turns: [{ tool_calls: Array.from({ length: CALLS }, () => terminalCall('sleep 1')) }, { content: 'done' }] });
        // Warm up: bundle caches, the sandbox probe, first connections, the JIT.
        await floor('floorTurns', TURNS)();
        await session(cheapTurns)();
        await session(readTurns)();

        // The same model process answers the floor's bare requests: what its HTTP round trip costs
        // inside a worker, apart from everything a session does around it.
        const modelUrl = answerOnly.model.base_url ?? '';
        await floor('floorModelTurns', TURNS, modelUrl)();

        const rounds: (Record<'floorTurn' | 'modelFloorTurn' | 'readTurn' | 'terminalTurn' | 'floorOne' | 'floorMany' | 'one' | 'many', number> & {
          modelFloorCost: Cost;
          readCost: Cost;
        })[] = [];
        for (let round = 0; round < ROUNDS; round++) {
          const emptyFloor = await measured(floor('floorTurns', 0));
          const floorTurn = perTurn(await measured(floor('floorTurns', TURNS)), emptyFloor, TURNS).ms;
          const modelFloorCost = perTurn(await measured(floor('floorModelTurns', TURNS, modelUrl)), emptyFloor, TURNS);
          const answerOnlyCost = await measured(session(answerOnly));
          const readCost = perTurn(await measured(session(readTurns)), answerOnlyCost, TURNS);
          const terminalTurn = perTurn(await measured(session(cheapTurns)), answerOnlyCost, TURNS).ms;
          const [floorOne, floorMany] = [await timed(floor('floorParallel', 1)), await timed(floor('floorParallel', CALLS))];
          const [one, many] = [await timed(session(oneSleep)), await timed(session(manySleeps))];
          rounds.push({ floorTurn, modelFloorTurn: modelFloorCost.ms, readTurn: readCost.ms, terminalTurn, floorOne, floorMany, one, many, modelFloorCost, readCost });
        }
        const med = (pick: (round: (typeof rounds)[number]) => number) => median(rounds.map(pick));
        // CPU is steadier than wall time on a shared machine, and says where a turn's time goes.
        const cpuLine = (cost: (round: (typeof rounds)[number]) => Cost) =>
          `worker ${med((round) => cost(round).workerCpuMs).toFixed(1)} + dev server ${med((round) => cost(round).serverCpuMs).toFixed(1)} ms`;
        const floorTurn = med((round) => round.floorTurn);
        console.log(`Session figures vs Temporal's floor, same dev server, rounds alternating (median of ${ROUNDS}; ${TURNS} turns; ${os.cpus().length} cores, ${os.cpus()[0]?.model ?? 'unknown CPU'})`);
        console.log(
          `  per turn (model call + one \`read_file\`): ${med((round) => round.readTurn).toFixed(0)} ms; floor (two trivial activities): ${floorTurn.toFixed(0)} ms: ` +
            `${med((round) => round.readTurn / round.floorTurn).toFixed(2)}x floor (goal 1.3x)`,
        );
        console.log(
          `    floor with the model's round trip (a bare \`openai\` request to the same model process, then a trivial activity): ` +
            `${med((round) => round.modelFloorTurn).toFixed(0)} ms; per turn vs it: ${med((round) => round.readTurn / round.modelFloorTurn).toFixed(2)}x`,
        );
        // Where the turn's time over the trivial floor goes: what the model's HTTP round trip costs
        // by itself, and what is left for the session's own work (history, the call's checks, the store).
        console.log(
          `    over the trivial floor: the model's round trip ${med((round) => round.modelFloorTurn - round.floorTurn).toFixed(1)} ms, ` +
            `the session's own work ${med((round) => round.readTurn - round.modelFloorTurn).toFixed(1)} ms; 1.3x the floor leaves ${(0.3 * floorTurn).toFixed(1)} ms for both`,
        );
        console.log(
          `    CPU per turn: ${cpuLine((round) => round.readCost)}; floor with the model's round trip: ${cpuLine((round) => round.modelFloorCost)}; ` +
            `total vs it: ${med((round) => total(round.readCost) / total(round.modelFloorCost)).toFixed(2)}x`,
        );
        console.log(`  per turn (model call + one terminal \`true\`, a sandboxed process): ${med((round) => round.terminalTurn).toFixed(0)} ms: ${med((round) => round.terminalTurn / round.floorTurn).toFixed(2)}x floor`);
        console.log(
          `  parallel terminal, ${CALLS} x \`sleep 1\` in one turn vs one (sandbox ${sandbox}): ${med((round) => round.many / round.one).toFixed(2)}x; ` +
            `floor, ${CALLS} one-second activities vs one: ${med((round) => round.floorMany / round.floorOne).toFixed(2)}x (goal 1.15x)`,
        );
      }),
    );
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
